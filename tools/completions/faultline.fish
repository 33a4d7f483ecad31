# fish completion for faultline, generated from its command table (src/cli/command_table.cpp) by
# fish_completion(); do not edit. Installed to share/fish/vendor_completions.d/faultline.fish.

complete -c faultline -f
complete -c faultline-cuda -w faultline

# Commands
complete -c faultline -n '__fish_use_subcommand' -a diagnose -d 'one job from files, directories or stdin (paste, then Ctrl-D)'
complete -c faultline -n '__fish_use_subcommand' -a scan -d 'many jobs (run directories, archives): one JSONL line per job, then a summary line'
complete -c faultline -n '__fish_use_subcommand' -a merge -d 'the summary of sharded scans, from their lines'
complete -c faultline -n '__fish_use_subcommand' -a preflight -d 'check a TP/PP plan against the model before launch'
complete -c faultline -n '__fish_use_subcommand' -a repro -d 'run a small TP job: reproduce the failure, check the fix'
complete -c faultline -n '__fish_use_subcommand' -a explain -d 'a rule\'s entry: cause, symptoms, fix, how to confirm'
complete -c faultline -n '__fish_use_subcommand' -a help -d 'this overview, or a command\'s help'
complete -c faultline -n '__fish_use_subcommand' -a rules -d 'the rules: list, test, check, patterns, docs, suggest'
complete -c faultline -n '__fish_use_subcommand' -l help -s h -d 'the help'
complete -c faultline -n '__fish_use_subcommand' -l version -d 'the version'
complete -c faultline -n '__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from list test check patterns docs suggest' -a list -d 'the rules in force'
complete -c faultline -n '__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from list test check patterns docs suggest' -a test -d 'run every rule\'s embedded examples; with a corpus, also score the rules'
complete -c faultline -n '__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from list test check patterns docs suggest' -a check -d 'validate rule files (errors as FILE:LINE:COL: message)'
complete -c faultline -n '__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from list test check patterns docs suggest' -a patterns -d 'every rule pattern, one per line, as grep tools take them'
complete -c faultline -n '__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from list test check patterns docs suggest' -a docs -d 'write every rule\'s entry as Markdown (docs/rules)'
complete -c faultline -n '__fish_seen_subcommand_from rules; and not __fish_seen_subcommand_from list test check patterns docs suggest' -a suggest -d 'a rule skeleton for each error no rule knows yet'

# faultline diagnose
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l format -x -a 'text json jsonl markdown html sarif' -d 'text (default), json, jsonl, markdown, html, sarif'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l color -x -a 'auto always never' -d 'auto (default: on a terminal, unless NO_COLOR or TERM=dumb), always, never'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l quiet -s q -d 'print the diagnosis and its evidence only'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l baseline -r -F -d 'a healthy run of the same job: what it shows too is set aside (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l verify -d 'run the diagnosis\' verify command when it is a faultline preflight or repro command'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l include -x -d 'in directories, read only files matching one of these (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l exclude -x -d 'in directories, leave out files and folders matching these (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l read-every-line -d 'parse every line of large logs too (slower; by default only likely lines past 1 MiB)'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from diagnose' -F

# faultline scan
complete -c faultline -n '__fish_seen_subcommand_from scan' -l jobs -s j -x -d 'worker threads (default: one per core)'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l shard -x -d 'only the jobs of shard I of N (0-based; a hash of each job\'s path)'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l job-by -x -a 'run dir file archive' -d 'what a job is: run (default: a run directory or an archive), dir, file, archive'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l format -x -a 'text json jsonl markdown html sarif' -d 'jsonl (the only one)'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l quiet -s q -d 'no summary or progress on stderr'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l include -x -d 'in directories, read only files matching one of these (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l exclude -x -d 'in directories, leave out files and folders matching these (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l read-every-line -d 'parse every line of large logs too (slower; by default only likely lines past 1 MiB)'
complete -c faultline -n '__fish_seen_subcommand_from scan' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from scan' -F

# faultline merge
complete -c faultline -n '__fish_seen_subcommand_from merge' -l format -x -a 'text json jsonl markdown html sarif' -d 'jsonl (default: the summary line), json, text'
complete -c faultline -n '__fish_seen_subcommand_from merge' -l quiet -s q -d 'no summary text on stderr'
complete -c faultline -n '__fish_seen_subcommand_from merge' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from merge' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from merge' -F

# faultline preflight
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l config -r -F -d 'the model\'s Hugging Face config.json'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l tp -x -d 'tensor-parallel size'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l pp -x -d 'pipeline-parallel size'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l gpus -r -F -d 'the GPUs: a count, an nvidia-smi --query-gpu CSV file, or auto'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l heads -x -d 'attention heads (replaces the config\'s)'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l kv-heads -x -d 'key/value heads'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l hidden -x -d 'hidden size'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l ffn -x -d 'FFN intermediate size'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l vocab -x -d 'vocabulary size'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l layers -x -d 'layers'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l experts -x -d 'experts (routed experts of an MoE model)'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l ep -x -d 'expert-parallel size: it must divide the experts and the GPUs its groups are drawn from'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l ffn-multiple -x -d 'a kernel tile or quantization group each rank\'s FFN shard (FFN / TP) must be a multiple of'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l virtual-pipeline -x -d 'Megatron\'s virtual pipeline size: it must divide each stage\'s layers'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l model -x -d 'a Hugging Face model id from the catalogue (its sizes; options replace them)'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l framework -x -a 'vllm sglang tgi megatron nemo deepspeed colossalai trtllm' -d 'how the framework splits: vllm, sglang (default: KV heads replicated), tgi (vocabulary unpadded), megatron, nemo, deepspeed (query groups divisible, GPUs a multiple of TP×PP), trtllm (GPUs = TP×PP)'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l require -x -d 'what the framework demands beyond its defaults, comma-separated: kv-divisible (no KV-head replication), vocab-divisible (no vocabulary padding), layers-divisible (no uneven pipeline stages), gpus-multiple (GPUs a multiple of TP×PP), gpus-exact (GPUs = TP×PP)'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l format -x -a 'text json jsonl markdown html sarif' -d 'text (default), json'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l color -x -a 'auto always never' -d 'auto (default: on a terminal, unless NO_COLOR or TERM=dumb), always, never'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from preflight' -l help -s h -d 'this command\'s help'

# faultline repro
complete -c faultline -n '__fish_seen_subcommand_from repro' -l config -r -F -d 'the model\'s Hugging Face config.json'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l tp -x -d 'tensor-parallel size'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l heads -x -d 'attention heads (replaces the config\'s)'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l kv-heads -x -d 'key/value heads'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l ffn -x -d 'FFN intermediate size'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l vocab -x -d 'vocabulary size'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l backend -x -a 'cpu cuda' -d 'cpu (default; always built) or cuda (faultline-cuda, with CUDA and NCCL)'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l full-size -d 'the model\'s real sizes instead of scaled-down ones'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from repro' -l help -s h -d 'this command\'s help'

# faultline rules list
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from list' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from list' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from list' -l help -s h -d 'this command\'s help'

# faultline rules test
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from test' -l corpus -x -a '(__fish_complete_directories)' -d 'also score the rules on a labelled corpus'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from test' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from test' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from test' -l help -s h -d 'this command\'s help'

# faultline rules check
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from check' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from check' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from check' -F

# faultline rules patterns
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from patterns' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from patterns' -l help -s h -d 'this command\'s help'

# faultline rules docs
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from docs' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from docs' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from docs' -F

# faultline rules suggest
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from suggest' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from suggest' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from suggest' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from suggest' -F

# faultline explain
complete -c faultline -n '__fish_seen_subcommand_from explain; and not __fish_seen_subcommand_from rules' -l rules -x -a '(__fish_complete_directories)' -d 'load more rule packs; a rule with a shipped id replaces it (repeatable)'
complete -c faultline -n '__fish_seen_subcommand_from explain; and not __fish_seen_subcommand_from rules' -l redact -d 'mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets'
complete -c faultline -n '__fish_seen_subcommand_from explain; and not __fish_seen_subcommand_from rules' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from explain; and not __fish_seen_subcommand_from rules' -x -a '(faultline rules list 2>/dev/null | awk "NF > 1 {print \\$1}")'

# faultline help
complete -c faultline -n '__fish_seen_subcommand_from help' -l help -s h -d 'this command\'s help'
complete -c faultline -n '__fish_seen_subcommand_from help' -x -a 'diagnose scan merge preflight repro explain help rules'
