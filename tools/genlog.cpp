// genlog: writes large, realistic, interleaved multi-rank torchrun logs for benchmarking
// and testing faultline.
//
// The output mimics an N-rank Megatron-style training job launched with torchrun:
// `[rankN]:` and `[defaultL]:[rankN]:` prefixed lines, Megatron iteration lines, c10
// glog-style warnings, NCCL INFO lines, harmless Python warnings, tqdm progress bars and a
// small share (~0.1%) of near-miss lines (benign text containing Error, timeout, NCCL WARN)
// so that a prefilter has something to reject. Ranks interleave randomly line by line.
//
// With `--fault heads` (the default) the log ends the way a tensor-parallel misconfiguration
// ends: rank --fault-rank raises a ValueError traceback ("Total number of attention heads (32)
// must be divisible by tensor parallel size (6).") while the other ranks keep logging, then
// the other ranks hit the ProcessGroupNCCL watchdog timeout and the torchrun agent prints its
// ChildFailedError summary.
//
// Output is deterministic for a given seed. Lines are formatted by hand into large blocks
// that are written with one fwrite each, so 1 GB takes about a second.
//
// Usage:
//   genlog [--size 1G] [--ranks 8] [--seed 42] [--fault heads|none] [--fault-rank 3] [-o FILE]
//          [--dense oom-spam|nccl-debug]   dense logs: a CUDA OOM retry loop, an NCCL debug dump
//   genlog --files N --out-dir DIR [same options]   N jobs, one file per rank each
//
// Build: g++ -std=c++20 -O2 -o genlog tools/genlog.cpp

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace {

// ---------------------------------------------------------------------------------------
// Options

enum class Fault { heads, none };
// Dense logs, where most lines matter (issue 16): none is the sparse training log.
enum class Dense { none, oom_spam, nccl_debug };

struct Options {
  std::uint64_t size_bytes = 1ULL << 30;
  int ranks = 8;
  std::uint64_t seed = 42;
  Fault fault = Fault::heads;
  Dense dense = Dense::none;
  int fault_rank = 3;
  bool fault_rank_given = false;
  std::string output_path;  // empty: stdout
  int job_count = 0;        // > 0: --files mode
  std::string out_dir;
};

constexpr std::string_view usage_text =
    "usage: genlog [--size SIZE] [--ranks N] [--seed N] [--fault heads|none] [--fault-rank R]\n"
    "              [--dense oom-spam|nccl-debug]\n"
    "              [-o FILE | --files N --out-dir DIR]\n"
    "  --size SIZE       approximate output size, with optional K/M/G suffix (default 1G)\n"
    "  --ranks N         number of ranks, 8 per node (default 8)\n"
    "  --seed N          random seed; equal seeds give equal output (default 42)\n"
    "  --fault KIND      heads: end with an attention-heads/TP ValueError on one rank and\n"
    "                    watchdog timeouts on the others (default); none: no failure\n"
    "  --fault-rank R    the rank that raises the error (default 3, or the last rank if fewer)\n"
    "  --dense KIND      oom-spam: a serving loop whose ranks retry a CUDA OOM (most lines match\n"
    "                    rules; --fault is ignored); nccl-debug: an NCCL_DEBUG=INFO/TRACE dump\n"
    "                    (NCCL INFO and TRACE lines, then the --fault ending)\n"
    "  -o FILE           write to FILE instead of stdout\n"
    "  --files N         write N jobs, each a directory of rank<R>.log files plus torchrun.log\n"
    "  --out-dir DIR     where --files writes job0000/, job0001/, ... (SIZE is split across jobs)\n";

[[noreturn]] void fail_usage(std::string_view message) {
  std::fprintf(stderr, "genlog: %.*s\n%.*s", static_cast<int>(message.size()), message.data(),
               static_cast<int>(usage_text.size()), usage_text.data());
  std::exit(2);
}

bool parse_uint(std::string_view text, std::uint64_t& value) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size();
}

std::uint64_t parse_size(std::string_view text) {
  std::uint64_t multiplier = 1;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K':
      case 'k':
        multiplier = 1ULL << 10;
        break;
      case 'M':
      case 'm':
        multiplier = 1ULL << 20;
        break;
      case 'G':
      case 'g':
        multiplier = 1ULL << 30;
        break;
      default:
        break;
    }
    if (multiplier != 1) text.remove_suffix(1);
  }
  std::uint64_t value = 0;
  if (!parse_uint(text, value) || value == 0) fail_usage("bad --size value");
  return value * multiplier;
}

int parse_int_in_range(std::string_view text, int low, int high, std::string_view what) {
  std::uint64_t value = 0;
  if (!parse_uint(text, value) || value < static_cast<std::uint64_t>(low) ||
      value > static_cast<std::uint64_t>(high)) {
    fail_usage(std::string("bad ") + std::string(what) + " value");
  }
  return static_cast<int>(value);
}

Options parse_options(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string_view flag = argv[i];
    if (flag == "-h" || flag == "--help") {
      std::fwrite(usage_text.data(), 1, usage_text.size(), stdout);
      std::exit(0);
    }
    if (i + 1 >= argc) fail_usage("missing value after " + std::string(flag));
    std::string_view value = argv[++i];
    if (flag == "--size") {
      options.size_bytes = parse_size(value);
    } else if (flag == "--ranks") {
      options.ranks = parse_int_in_range(value, 1, 65536, "--ranks");
    } else if (flag == "--seed") {
      if (!parse_uint(value, options.seed)) fail_usage("bad --seed value");
    } else if (flag == "--fault") {
      if (value == "heads")
        options.fault = Fault::heads;
      else if (value == "none")
        options.fault = Fault::none;
      else
        fail_usage("--fault must be heads or none");
    } else if (flag == "--dense") {
      if (value == "oom-spam") {
        options.dense = Dense::oom_spam;
      } else if (value == "nccl-debug") {
        options.dense = Dense::nccl_debug;
      } else {
        fail_usage("--dense must be oom-spam or nccl-debug");
      }
    } else if (flag == "--fault-rank") {
      options.fault_rank = parse_int_in_range(value, 0, 65535, "--fault-rank");
      options.fault_rank_given = true;
    } else if (flag == "-o" || flag == "--output") {
      options.output_path = value;
    } else if (flag == "--files") {
      options.job_count = parse_int_in_range(value, 1, 1000000, "--files");
    } else if (flag == "--out-dir") {
      options.out_dir = value;
    } else {
      fail_usage("unknown option " + std::string(flag));
    }
  }
  if (!options.fault_rank_given) options.fault_rank = std::min(3, options.ranks - 1);
  if (options.fault_rank >= options.ranks) fail_usage("--fault-rank must be below --ranks");
  if ((options.job_count > 0) != !options.out_dir.empty()) {
    fail_usage("--files and --out-dir go together");
  }
  if (options.job_count > 0 && !options.output_path.empty()) {
    fail_usage("-o cannot be combined with --files");
  }
  return options;
}

// ---------------------------------------------------------------------------------------
// Random numbers: xoshiro256** seeded with splitmix64, so output is the same everywhere.

class Rng {
 public:
  explicit Rng(std::uint64_t seed) {
    for (auto& word : state_) word = splitmix64(seed);
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(state_[1] * 5, 7) * 9;
    const std::uint64_t shifted = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= shifted;
    state_[3] = rotl(state_[3], 45);
    return result;
  }

  // Uniform in [0, bound), bound > 0.
  std::uint32_t below(std::uint32_t bound) {
    return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32);
  }

  // Uniform in [low, high].
  int between(int low, int high) { return low + static_cast<int>(below(high - low + 1)); }

  // Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  bool chance(double probability) { return unit() < probability; }

  template <typename T, std::size_t N>
  const T& pick(const std::array<T, N>& items) {
    return items[below(static_cast<std::uint32_t>(N))];
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  static std::uint64_t splitmix64(std::uint64_t& x) {
    std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  std::array<std::uint64_t, 4> state_{};
};

// ---------------------------------------------------------------------------------------
// BlockWriter: formats lines by hand into a large buffer and writes it out in big blocks.

constexpr std::size_t block_bytes = 4 << 20;
constexpr std::size_t max_line_bytes = 64 << 10;  // slack past block_bytes; lines are far shorter

constexpr std::array<std::uint64_t, 10> powers_of_ten = {1,      10,      100,      1000,      10000,
                                                         100000, 1000000, 10000000, 100000000, 1000000000};

class BlockWriter {
 public:
  BlockWriter(std::FILE* file, bool owns_file, std::size_t block_size)
      : file_(file),
        owns_file_(owns_file),
        block_size_(block_size),
        buffer_(std::make_unique<char[]>(block_size + max_line_bytes)) {
    std::setvbuf(file_, nullptr, _IONBF, 0);
  }
  BlockWriter(const BlockWriter&) = delete;
  BlockWriter& operator=(const BlockWriter&) = delete;
  ~BlockWriter() {
    flush();
    if (owns_file_) std::fclose(file_);
  }

  void put(std::string_view text) {
    std::memcpy(buffer_.get() + length_, text.data(), text.size());
    length_ += text.size();
  }

  void put(char c) { buffer_[length_++] = c; }

  void put_uint(std::uint64_t value) {
    char digits[20];
    char* end = digits + sizeof digits;
    char* begin = end;
    do {
      *--begin = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    put(std::string_view(begin, static_cast<std::size_t>(end - begin)));
  }

  // Right-aligned in `width` characters, padded with `fill`.
  void put_padded(std::uint64_t value, int width, char fill = ' ') {
    int digit_count = 1;
    for (std::uint64_t rest = value / 10; rest != 0; rest /= 10) ++digit_count;
    for (int i = digit_count; i < width; ++i) put(fill);
    put_uint(value);
  }

  // Fixed-point, e.g. put_fixed(1234.56, 1) -> "1234.6". decimals <= 9.
  void put_fixed(double value, int decimals) {
    if (value < 0) {
      put('-');
      value = -value;
    }
    const std::uint64_t scale = powers_of_ten[decimals];
    const auto scaled = static_cast<std::uint64_t>(std::llround(value * static_cast<double>(scale)));
    put_uint(scaled / scale);
    if (decimals > 0) {
      put('.');
      put_padded(scaled % scale, decimals, '0');
    }
  }

  // Scientific like Python's "{:.3E}", e.g. put_scientific(2.345, 3) -> "2.345E+00".
  void put_scientific(double value, int decimals) {
    if (value < 0) {
      put('-');
      value = -value;
    }
    int exponent = value > 0 ? static_cast<int>(std::floor(std::log10(value))) : 0;
    const std::uint64_t scale = powers_of_ten[decimals];
    auto mantissa = static_cast<std::uint64_t>(
        std::llround(value / std::pow(10.0, exponent) * static_cast<double>(scale)));
    if (mantissa >= 10 * scale) {
      mantissa /= 10;
      ++exponent;
    }
    put_uint(mantissa / scale);
    put('.');
    put_padded(mantissa % scale, decimals, '0');
    put('E');
    put(exponent < 0 ? '-' : '+');
    put_padded(static_cast<std::uint64_t>(std::abs(exponent)), 2, '0');
  }

  void put_hex(std::uint64_t value) {
    static constexpr char hex_digits[] = "0123456789abcdef";
    char digits[16];
    char* end = digits + sizeof digits;
    char* begin = end;
    do {
      *--begin = hex_digits[value & 0xf];
      value >>= 4;
    } while (value != 0);
    put(std::string_view(begin, static_cast<std::size_t>(end - begin)));
  }

  void end_line() {
    put('\n');
    if (length_ >= block_size_) flush();
  }

  void flush() {
    if (length_ == 0) return;
    if (std::fwrite(buffer_.get(), 1, length_, file_) != length_) {
      std::perror("genlog: write failed");
      std::exit(1);
    }
    flushed_ += length_;
    length_ = 0;
  }

  std::uint64_t bytes_written() const { return flushed_ + length_; }

 private:
  std::FILE* file_;
  bool owns_file_;
  std::size_t block_size_;
  std::unique_ptr<char[]> buffer_;
  std::size_t length_ = 0;
  std::uint64_t flushed_ = 0;
};

// ---------------------------------------------------------------------------------------
// Sink: routes each line to a writer. One stream for everything, or (--files) one file per
// rank plus torchrun.log for the launcher's own lines.

constexpr int agent_rank = -1;

class Sink {
 public:
  static Sink single_stream(std::FILE* file, bool owns_file, int ranks) {
    Sink sink;
    sink.writers_.push_back(std::make_unique<BlockWriter>(file, owns_file, block_bytes));
    sink.route_.assign(static_cast<std::size_t>(ranks) + 1, sink.writers_.front().get());
    return sink;
  }

  static Sink file_per_rank(const std::filesystem::path& dir, int ranks) {
    Sink sink;
    const std::size_t per_file_block = std::max<std::size_t>(64 << 10, block_bytes / (ranks + 1));
    sink.add_file(dir / "torchrun.log", per_file_block);
    for (int rank = 0; rank < ranks; ++rank) {
      sink.add_file(dir / ("rank" + std::to_string(rank) + ".log"), per_file_block);
    }
    return sink;
  }

  BlockWriter& for_rank(int rank) { return *route_[static_cast<std::size_t>(rank + 1)]; }

  std::uint64_t bytes_written() const {
    std::uint64_t total = 0;
    for (const auto& writer : writers_) total += writer->bytes_written();
    return total;
  }

  bool is_single_stream() const { return writers_.size() == 1; }

 private:
  void add_file(const std::filesystem::path& path, std::size_t block_size) {
    std::FILE* file = std::fopen(path.c_str(), "wb");
    if (file == nullptr) {
      std::perror(("genlog: cannot open " + path.string()).c_str());
      std::exit(1);
    }
    writers_.push_back(std::make_unique<BlockWriter>(file, true, block_size));
    route_.push_back(writers_.back().get());
  }

  std::vector<std::unique_ptr<BlockWriter>> writers_;
  std::vector<BlockWriter*> route_;  // index rank + 1; index 0 is the launcher
};

// ---------------------------------------------------------------------------------------
// Clock: simulated wall time, printed in the formats the various loggers use.

struct CivilTime {
  int year, month, day, hour, minute, second;
  std::uint32_t nanos;
};

// Howard Hinnant's civil_from_days: days since 1970-01-01 to year/month/day.
void civil_from_days(std::int64_t days, int& year, int& month, int& day) {
  days += 719468;
  const std::int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const auto day_of_era = static_cast<unsigned>(days - era * 146097);
  const unsigned year_of_era =
      (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
  const unsigned day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
  const unsigned month_index = (5 * day_of_year + 2) / 153;
  day = static_cast<int>(day_of_year - (153 * month_index + 2) / 5 + 1);
  month = static_cast<int>(month_index < 10 ? month_index + 3 : month_index - 9);
  year = static_cast<int>(year_of_era + era * 400 + (month <= 2 ? 1 : 0));
}

class Clock {
 public:
  explicit Clock(std::uint64_t start_epoch_seconds) : nanos_(start_epoch_seconds * 1000000000ULL) {}

  void advance_nanos(std::uint64_t nanos) { nanos_ += nanos; }
  void advance_seconds(std::uint64_t seconds) { nanos_ += seconds * 1000000000ULL; }

  CivilTime now() const {
    const std::uint64_t seconds = nanos_ / 1000000000ULL;
    CivilTime t{};
    civil_from_days(static_cast<std::int64_t>(seconds / 86400), t.year, t.month, t.day);
    const std::uint64_t second_of_day = seconds % 86400;
    t.hour = static_cast<int>(second_of_day / 3600);
    t.minute = static_cast<int>(second_of_day / 60 % 60);
    t.second = static_cast<int>(second_of_day % 60);
    t.nanos = static_cast<std::uint32_t>(nanos_ % 1000000000ULL);
    return t;
  }

 private:
  std::uint64_t nanos_;
};

void put_hms(BlockWriter& out, const CivilTime& t) {
  out.put_padded(t.hour, 2, '0');
  out.put(':');
  out.put_padded(t.minute, 2, '0');
  out.put(':');
  out.put_padded(t.second, 2, '0');
}

void put_ymd(BlockWriter& out, const CivilTime& t, char separator) {
  out.put_uint(t.year);
  out.put(separator);
  out.put_padded(t.month, 2, '0');
  out.put(separator);
  out.put_padded(t.day, 2, '0');
}

// c10 logger: "[W1129 10:22:33.123456789 file.cpp:123] " (month not zero-padded).
void put_c10_header(BlockWriter& out, const CivilTime& t, char severity, std::string_view source) {
  out.put('[');
  out.put(severity);
  out.put_uint(t.month);
  out.put_padded(t.day, 2, '0');
  out.put(' ');
  put_hms(out, t);
  out.put('.');
  out.put_padded(t.nanos, 9, '0');
  out.put(' ');
  out.put(source);
  out.put("] ");
}

// Python logging asctime: "2024-11-29 10:22:33,123".
void put_python_time(BlockWriter& out, const CivilTime& t) {
  put_ymd(out, t, '-');
  out.put(' ');
  put_hms(out, t);
  out.put(',');
  out.put_padded(t.nanos / 1000000, 3, '0');
}

// torchrun agent (TorchLogsFormatter): "W1129 10:32:34.512000 4021 " (microseconds end in 000).
void put_agent_header(BlockWriter& out, const CivilTime& t, char severity, std::uint32_t pid,
                      std::string_view source) {
  out.put(severity);
  out.put_padded(t.month, 2, '0');
  out.put_padded(t.day, 2, '0');
  out.put(' ');
  put_hms(out, t);
  out.put('.');
  out.put_padded(t.nanos / 1000000 * 1000, 6, '0');
  out.put(' ');
  out.put_uint(pid);
  out.put(' ');
  out.put(source);
  out.put("] ");
}

// ---------------------------------------------------------------------------------------
// Line content tables

constexpr std::uint64_t start_epoch_seconds = 1732874400;  // 2024-11-29 10:00:00
constexpr int ranks_per_node = 8;
constexpr int train_iterations = 500000;
constexpr int global_batch_size = 1024;
constexpr int attention_heads = 32;
constexpr int bad_tensor_parallel_size = 6;
constexpr std::uint32_t watchdog_timeout_ms = 600000;

constexpr std::array<std::string_view, 5> c10_benign_warnings = {
    "ProcessGroupNCCL.cpp:4561] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS is the default now, "
    "this environment variable is thus deprecated. (function operator())",
    "CUDAAllocatorConfig.h:28] Warning: expandable_segments not supported on this platform "
    "(function operator())",
    "Utils.hpp:110] Warning: Environment variable NCCL_ASYNC_ERROR_HANDLING is deprecated; use "
    "TORCH_NCCL_ASYNC_ERROR_HANDLING instead (function getCvarInt)",
    "reducer.cpp:1400] Warning: find_unused_parameters=True was specified in DDP constructor, "
    "but did not find any unused parameters in the forward pass. This flag results in an extra "
    "traversal of the autograd graph every iteration (function operator())",
    "CUDAGuardImpl.h:119] Warning: CUDA warning: driver shutting down for peer device 0 "
    "ignored, peer access already enabled (function destroyEvent)",
};

constexpr std::array<std::string_view, 6> python_warnings = {
    "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:1399: FutureWarning: "
    "`torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', "
    "args...)` instead.",
    "  with torch.enable_grad(), device_autocast_ctx, torch.cpu.amp.autocast(**ctx.cpu_autocast_"
    "kwargs):  # type: ignore[attr-defined]",
    "/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/attention.py:4521: "
    "UserWarning: flash-attn v3 may provide important feature support or performance "
    "improvement. Please install flash-attn v3 by",
    "  warnings.warn(",
    "/workspace/Megatron-LM/megatron/core/tensor_parallel/layers.py:637: UserWarning: "
    "async_grad_allreduce is deprecated, not in use anymore and will be fully removed with 0.10.0.",
    "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py:4151: "
    "UserWarning: No device id is provided via `init_process_group` or `barrier `.",
};

constexpr std::array<std::string_view, 7> timer_names = {
    "forward-backward ...............................", "forward-compute ................................",
    "backward-compute ...............................", "batch-generator ................................",
    "layernorm-grads-all-reduce .....................", "grads-reduce-scatter ...........................",
    "optimizer ......................................",
};

constexpr std::array<std::string_view, 3> tqdm_labels = {"Training", "Evaluating",
                                                         "Loading checkpoint shards"};

// Benign lines that contain words a careless rule might match.
constexpr std::array<std::string_view, 9> near_miss_texts = {
    "eval | step {iter} | Error rate: 0.0213 | samples 4096",
    "Setting NCCL timeout to 0:10:00 (timeout_ms=600000) for process group default_pg",
    "dataloader: no error in worker 3 after retry (timeout=120s)",
    "ECC Error counters on all GPUs are 0 (checked by health monitor)",
    "exception handling: TORCH_NCCL_ASYNC_ERROR_HANDLING=1, blocking wait disabled",
    "RuntimeError count in last 1000 steps: 0",
    "skipped 0 batches with NaN/Inf loss; overflow check failed 0 times",
    "heartbeat monitor: no timeout in the last 600 s (TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC=600)",
    "validation: checked for ValueError in 412 config keys, none found",
};

constexpr std::array<std::string_view, 3> nccl_benign_warnings = {
    "misc/nvmlwrap.cc:183 NCCL WARN nvmlDeviceGetNvLinkRemoteDeviceType() failed: Not Supported",
    "transport/net_ib.cc:534 NCCL WARN NET/IB : Got async event : port active (no error)",
    "misc/ibvwrap.cc:92 NCCL WARN Call to ibv_reg_dmabuf_mr returned Not supported, falling back "
    "to ibv_reg_mr",
};

struct TracebackFrame {
  std::string_view file;
  int line;
  std::string_view function;
  std::string_view code;
};

constexpr std::array<TracebackFrame, 8> heads_traceback_frames = {{
    {"/workspace/Megatron-LM/pretrain_gpt.py", 297, "<module>", "pretrain("},
    {"/workspace/Megatron-LM/megatron/training/training.py", 262, "pretrain",
     "model, optimizer, opt_param_scheduler = setup_model_and_optimizer("},
    {"/workspace/Megatron-LM/megatron/training/training.py", 521, "setup_model_and_optimizer",
     "model = get_model(model_provider_func, model_type)"},
    {"/workspace/Megatron-LM/megatron/training/training.py", 386, "get_model",
     "model = model_provider_func("},
    {"/workspace/Megatron-LM/pretrain_gpt.py", 84, "model_provider", "model = GPTModel("},
    {"/workspace/Megatron-LM/megatron/core/transformer/attention.py", 72, "__init__",
     "self.num_attention_heads_per_partition = divide(self.config.num_attention_heads, world_size)"},
    {"/workspace/Megatron-LM/megatron/core/utils.py", 45, "divide",
     "ensure_divisibility(numerator, denominator)"},
    {"/workspace/Megatron-LM/megatron/core/utils.py", 39, "ensure_divisibility", "raise ValueError("},
}};

constexpr std::array<TracebackFrame, 6> agent_traceback_frames = {{
    {"/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"},
    {"/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/"
     "__init__.py",
     355, "wrapper", "return f(*args, **kwargs)"},
    {"/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", 919, "main", "run(args)"},
    {"/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", 910, "run", "elastic_launch("},
    {"/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", 138, "__call__",
     "return launch_agent(self._config, self._entrypoint, list(args))"},
    {"/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", 269, "launch_agent",
     "raise ChildFailedError("},
}};

// Share of each kind of ordinary line, in lines per million.
enum class LineKind {
  iteration,
  timer,
  python_info,
  c10_warning,
  nccl_info,
  tqdm,
  python_warning,
  near_miss
};

struct KindWeight {
  LineKind kind;
  std::uint32_t per_million;
};

constexpr std::array<KindWeight, 8> line_kind_weights = {{
    {LineKind::iteration, 60000},
    {LineKind::timer, 90000},
    {LineKind::python_info, 260000},
    {LineKind::c10_warning, 40000},
    {LineKind::nccl_info, 420000},
    {LineKind::tqdm, 90000},
    {LineKind::python_warning, 39000},
    {LineKind::near_miss, 1000},
}};

static_assert([] {
  std::uint32_t total = 0;
  for (const auto& weight : line_kind_weights) total += weight.per_million;
  return total == 1000000;
}());

// ---------------------------------------------------------------------------------------
// LogGenerator

struct RankIdentity {
  int rank;
  int local_rank;
  int node;
  std::uint32_t pid;
  std::uint32_t nccl_thread_id;
};

class LogGenerator {
 public:
  LogGenerator(const Options& options, std::uint64_t seed, Sink& sink)
      : options_(options),
        rng_(seed),
        clock_(start_epoch_seconds),
        sink_(sink),
        tee_share_(sink.is_single_stream() ? 0.15 : 0.0) {
    const std::uint32_t pid_base = 4000 + rng_.below(60000);
    agent_pid_ = pid_base - 1 - rng_.below(50);
    for (int rank = 0; rank < options.ranks; ++rank) {
      const std::uint32_t pid = pid_base + static_cast<std::uint32_t>(rank) * 7 + rng_.below(5);
      ranks_.push_back({rank, rank % ranks_per_node, rank / ranks_per_node, pid, pid + 200 + rng_.below(90)});
    }
    comm_id_ = rng_.next();
    comm_address_ = 0x55d5c8000000ULL + (rng_.next() & 0xffffff0ULL);
  }

  void write_ordinary_lines_until(std::uint64_t target_bytes) {
    while (sink_.bytes_written() < target_bytes) write_ordinary_line(-1);
  }

  void write_heads_fault_ending() {
    write_heads_traceback();
    write_watchdog_timeouts();
    write_agent_epilogue();
  }

  // A rough upper bound of what write_heads_fault_ending() adds.
  std::uint64_t estimated_fault_ending_bytes() const {
    return 4000 + static_cast<std::uint64_t>(options_.ranks) * 1450;
  }

  // --dense oom-spam: a serving loop on every rank that keeps retrying a batch the GPU has no
  // memory for. Each retry logs a warning, then either the whole traceback or the error alone
  // through the logger; a little throughput chatter in between. Most lines match rules.
  void write_oom_spam_until(std::uint64_t target_bytes) {
    while (sink_.bytes_written() < target_bytes) {
      clock_.advance_nanos(rng_.below(20000000));
      const int rank = static_cast<int>(rng_.below(static_cast<std::uint32_t>(options_.ranks)));
      switch (rng_.below(10)) {
        case 0:
          write_python_info_line(rank);
          break;
        case 1:
        case 2:
        case 3:
          write_retry_warning_line(rank);
          break;
        case 4:
        case 5:
          write_oom_traceback(rank);
          break;
        default:
          write_logged_oom_line(rank);
          break;
      }
    }
  }

  // --dense nccl-debug: what NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=ALL (and TRACE builds)
  // prints: NCCL INFO setup lines and a TRACE line per collective, from every rank.
  void write_nccl_debug_until(std::uint64_t target_bytes) {
    while (sink_.bytes_written() < target_bytes) {
      clock_.advance_nanos(rng_.below(2000000));
      const int rank = static_cast<int>(rng_.below(static_cast<std::uint32_t>(options_.ranks)));
      switch (rng_.below(10)) {
        case 0:
        case 1:
        case 2:
          write_nccl_info_line(rank);
          break;
        case 3:
          write_ordinary_line(-1);
          break;
        default:
          write_nccl_trace_line(rank);
          break;
      }
    }
  }

 private:
  // -- ordinary lines ---------------------------------------------------------------------

  // One line of normal training chatter from a random rank other than `excluded_rank`.
  void write_ordinary_line(int excluded_rank) {
    clock_.advance_nanos(rng_.below(150000000));
    const LineKind kind = pick_line_kind();
    if (kind == LineKind::iteration) {
      const int logging_rank = options_.ranks - 1;  // Megatron logs from the last stage
      if (logging_rank != excluded_rank) {
        write_iteration_line(logging_rank);
        return;
      }
    }
    int rank = static_cast<int>(rng_.below(static_cast<std::uint32_t>(options_.ranks)));
    if (rank == excluded_rank) rank = (rank + 1) % options_.ranks;
    switch (kind) {
      case LineKind::iteration:
      case LineKind::timer:
        write_timer_line(rank);
        break;
      case LineKind::python_info:
        write_python_info_line(rank);
        break;
      case LineKind::c10_warning:
        write_c10_warning_line(rank);
        break;
      case LineKind::nccl_info:
        write_nccl_info_line(rank);
        break;
      case LineKind::tqdm:
        write_tqdm_line(rank);
        break;
      case LineKind::python_warning:
        write_python_warning_line(rank);
        break;
      case LineKind::near_miss:
        write_near_miss_line(rank);
        break;
    }
  }

  LineKind pick_line_kind() {
    std::uint32_t roll = rng_.below(1000000);
    for (const auto& weight : line_kind_weights) {
      if (roll < weight.per_million) return weight.kind;
      roll -= weight.per_million;
    }
    return LineKind::python_info;
  }

  // "[rank3]: " for Python-side output; with --tee also "[default3]:" in front.
  BlockWriter& begin_rank_line(int rank, bool space_after_prefix = true) {
    BlockWriter& out = sink_.for_rank(rank);
    put_tee_prefix_sometimes(out, rank);
    out.put("[rank");
    out.put_uint(rank);
    out.put(space_after_prefix ? "]: " : "]:");
    return out;
  }

  void put_tee_prefix_sometimes(BlockWriter& out, int rank) {
    if (tee_share_ > 0 && rng_.chance(tee_share_)) {
      out.put("[default");
      out.put_uint(ranks_[rank].local_rank);
      out.put("]:");
    }
  }

  void write_iteration_line(int rank) {
    ++iteration_;
    const double lm_loss = 2.05 + 8.5 * std::exp(-iteration_ / 3000.0) + 0.08 * (rng_.unit() - 0.5);
    const double learning_rate =
        3.0e-4 * (0.1 + 0.9 * std::max(0.0, 1.0 - iteration_ / double(train_iterations)));
    BlockWriter& out = begin_rank_line(rank);
    out.put(" [");
    put_ymd(out, clock_.now(), '-');
    out.put(' ');
    put_hms(out, clock_.now());
    out.put("] iteration ");
    out.put_padded(iteration_, 8);
    out.put('/');
    out.put_padded(train_iterations, 8);
    out.put(" | consumed samples: ");
    out.put_padded(static_cast<std::uint64_t>(iteration_) * global_batch_size, 12);
    out.put(" | elapsed time per iteration (ms): ");
    out.put_fixed(1180.0 + rng_.below(900) / 10.0, 1);
    out.put(" | learning rate: ");
    out.put_scientific(learning_rate, 6);
    out.put(" | global batch size: ");
    out.put_padded(global_batch_size, 5);
    out.put(" | lm loss: ");
    out.put_scientific(lm_loss, 6);
    out.put(" | loss scale: 1.0 | grad norm: ");
    out.put_fixed(0.6 + rng_.unit() * 0.5, 3);
    out.put(" | number of skipped iterations:   0 | number of nan iterations:   0 |");
    out.end_line();
  }

  void write_timer_line(int rank) {
    BlockWriter& out = begin_rank_line(rank);
    if (rng_.below(8) == 0) {
      out.put("(min, max) time across ranks (ms):");
    } else {
      out.put("    ");
      out.put(rng_.pick(timer_names));
      out.put(": (");
      const double low = 5.0 + rng_.below(1200000) / 1000.0;
      out.put_fixed(low, 2);
      out.put(", ");
      out.put_fixed(low + rng_.below(4000) / 1000.0, 2);
      out.put(')');
    }
    out.end_line();
  }

  void write_python_info_line(int rank) {
    BlockWriter& out = begin_rank_line(rank);
    switch (rng_.below(5)) {
      case 0:
        out.put('[');
        put_python_time(out, clock_.now());
        out.put("] [INFO] [logging.py:128:log_dist] [Rank ");
        out.put_uint(rank);
        out.put("] step=");
        out.put_uint(iteration_);
        out.put(", skipped=0, lr=[0.000");
        out.put_uint(100 + rng_.below(200));
        out.put("], mom=[(0.9, 0.95)]");
        break;
      case 1:
        out.put("[Rank ");
        out.put_uint(rank);
        out.put("] (after ");
        out.put_uint(iteration_);
        out.put(" iterations) memory (MB) | allocated: ");
        out.put_fixed(43000 + rng_.below(400000) / 100.0, 2);
        out.put(" | max allocated: ");
        out.put_fixed(52000 + rng_.below(400000) / 100.0, 2);
        out.put(" | reserved: 61500.0 | max reserved: 61500.0");
        break;
      case 2:
        out.put("INFO:megatron.core.timers:throughput per GPU (TFLOP/s/GPU): ");
        out.put_fixed(175 + rng_.below(150) / 10.0, 1);
        out.put(" | tokens per second per GPU: ");
        out.put_uint(30000 + rng_.below(3000));
        break;
      case 3:
        out.put('[');
        put_python_time(out, clock_.now());
        out.put("] [INFO] [timer.py:260:stop] epoch=0/micro_step=");
        out.put_uint(static_cast<std::uint64_t>(iteration_) * 8);
        out.put("/global_step=");
        out.put_uint(iteration_);
        out.put(", RunningAvgSamplesPerSec=");
        out.put_fixed(810 + rng_.below(100) / 10.0, 3);
        out.put(", CurrSamplesPerSec=");
        out.put_fixed(800 + rng_.below(300) / 10.0, 3);
        out.put(", MemAllocated=43.21GB, MaxMemAllocated=52.1GB");
        break;
      default:
        out.put("data_loader: fetched batch ");
        out.put_uint(iteration_ * 8 + rng_.below(8));
        out.put(" (shard ");
        out.put_padded(rng_.below(4096), 5, '0');
        out.put(") in ");
        out.put_fixed(rng_.below(30000) / 1000000.0, 4);
        out.put('s');
        break;
    }
    out.end_line();
  }

  void write_c10_warning_line(int rank) {
    BlockWriter& out = begin_rank_line(rank, false);
    const CivilTime now = clock_.now();
    const std::string_view text = rng_.pick(c10_benign_warnings);
    const std::size_t header_end = text.find("] ");
    put_c10_header(out, now, 'W', text.substr(0, header_end));
    out.put(text.substr(header_end + 2));
    out.end_line();
  }

  // "node1:12345:12400 [3] NCCL INFO ..." (with --tee, "[default3]:" in front).
  BlockWriter& begin_nccl_line(int rank) {
    const RankIdentity& who = ranks_[rank];
    BlockWriter& out = sink_.for_rank(rank);
    put_tee_prefix_sometimes(out, rank);
    out.put("node");
    out.put_uint(who.node + 1);
    out.put(':');
    out.put_uint(who.pid);
    out.put(':');
    out.put_uint(who.nccl_thread_id + rng_.below(3));
    out.put(" [");
    out.put_uint(who.local_rank);
    out.put("] ");
    return out;
  }

  void put_rank_and_device(BlockWriter& out, int rank) {
    out.put_uint(rank);
    out.put('[');
    out.put_uint(ranks_[rank].local_rank);
    out.put(']');
  }

  void write_nccl_info_line(int rank) {
    BlockWriter& out = begin_nccl_line(rank);
    const int next = (rank + 1) % options_.ranks;
    const int previous = (rank + options_.ranks - 1) % options_.ranks;
    out.put("NCCL INFO ");
    switch (rng_.below(10)) {
      case 0:
      case 1:
      case 2:
        out.put("Channel ");
        out.put_padded(rng_.below(32), 2, '0');
        out.put("/0 : ");
        put_rank_and_device(out, rank);
        out.put(" -> ");
        put_rank_and_device(out, next);
        out.put(ranks_[rank].node == ranks_[next].node ? " via P2P/IPC" : " [send] via NET/IB/0/GDRDMA");
        break;
      case 3:
        out.put("Channel ");
        out.put_padded(rng_.below(32), 2, '0');
        out.put("/1 : ");
        put_rank_and_device(out, previous);
        out.put(" -> ");
        put_rank_and_device(out, rank);
        out.put(" [receive] via NET/IB/");
        out.put_uint(rng_.below(4));
        out.put("/GDRDMA");
        break;
      case 4:
        out.put("Trees [0] ");
        out.put_uint(next);
        out.put("/-1/-1->");
        out.put_uint(rank);
        out.put("->");
        out.put_uint(previous);
        out.put(" [1] ");
        out.put_uint(next);
        out.put("/-1/-1->");
        out.put_uint(rank);
        out.put("->");
        out.put_uint(previous);
        break;
      case 5:
        out.put("ncclCommInitRank comm 0x");
        out.put_hex(comm_address_ + static_cast<std::uint64_t>(rank) * 0x1000);
        out.put(" rank ");
        out.put_uint(rank);
        out.put(" nranks ");
        out.put_uint(options_.ranks);
        out.put(" cudaDev ");
        out.put_uint(ranks_[rank].local_rank);
        out.put(" nvmlDev ");
        out.put_uint(ranks_[rank].local_rank);
        out.put(" busId ");
        out.put_hex(0x18 + ranks_[rank].local_rank * 0x11);
        out.put("000 commId 0x");
        out.put_hex(comm_id_);
        out.put(" - Init COMPLETE");
        break;
      case 6:
        out.put(rng_.chance(0.5) ? "Connected all rings" : "Connected all trees");
        break;
      case 7:
        out.put("threadThresholds 8/8/64 | 64/8/64 | 512 | 512");
        break;
      case 8:
        out.put(
            "32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels, "
            "32 p2p channels per peer");
        break;
      default:
        out.put(
            "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB "
            "[RO]; OOB eth0:10.0.");
        out.put_uint(ranks_[rank].node);
        out.put('.');
        out.put_uint(10 + ranks_[rank].node);
        out.put("<0>");
        break;
    }
    out.end_line();
  }

  // "node1:1234:1300 [3] NCCL TRACE ... ncclAllReduce opCount 1a2b sendbuff 0x... count ..."
  void write_nccl_trace_line(int rank) {
    BlockWriter& out = begin_nccl_line(rank);
    static constexpr std::array<std::string_view, 4> collectives = {"AllReduce", "AllGather", "ReduceScatter",
                                                                    "Broadcast"};
    out.put("NCCL INFO ");
    out.put(rng_.pick(collectives));
    out.put(": opCount ");
    out.put_hex(++op_count_);
    out.put(" sendbuff 0x7f");
    out.put_hex(rng_.next() & 0xffffffffffULL);
    out.put(" recvbuff 0x7f");
    out.put_hex(rng_.next() & 0xffffffffffULL);
    out.put(" count ");
    out.put_uint(1u << rng_.between(10, 26));
    out.put(" datatype ");
    out.put_uint(rng_.below(10));
    out.put(" op ");
    out.put_uint(rng_.below(4));
    out.put(" root 0 comm 0x");
    out.put_hex(comm_address_ + static_cast<std::uint64_t>(rank) * 0x1000);
    out.put(" [nranks=");
    out.put_uint(options_.ranks);
    out.put("] stream 0x");
    out.put_hex(0x55d5d0000000ULL + (rng_.next() & 0xfffff0ULL));
    out.end_line();
  }

  // The serving loop's retry notice, through Python logging.
  void write_retry_warning_line(int rank) {
    BlockWriter& out = begin_rank_line(rank);
    out.put("WARNING ");
    put_python_time(out, clock_.now());
    out.put(" [worker.py:412] request req-");
    out.put_hex(rng_.next() & 0xffffffffULL);
    out.put(" failed, retrying batch of ");
    out.put_uint(rng_.between(1, 64));
    out.put(" (attempt ");
    out.put_uint(rng_.between(1, 5));
    out.put("/5)");
    out.end_line();
  }

  void put_oom_message(BlockWriter& out, int rank) {
    out.put("CUDA out of memory. Tried to allocate ");
    out.put_fixed(rng_.between(2, 4096) / 4.0, 2);
    out.put(" MiB. GPU ");
    out.put_uint(ranks_[rank].local_rank);
    out.put(" has a total capacity of 79.15 GiB of which ");
    out.put_fixed(rng_.between(10, 900) / 4.0, 2);
    out.put(" MiB is free. Including non-PyTorch memory, this process has 78.");
    out.put_padded(rng_.below(100), 2, '0');
    out.put(" GiB memory in use. Of the allocated memory 74.");
    out.put_padded(rng_.below(100), 2, '0');
    out.put(" GiB is allocated by PyTorch, and 2.");
    out.put_padded(rng_.below(100), 2, '0');
    out.put(" GiB is reserved by PyTorch but unallocated.");
  }

  void write_oom_traceback(int rank) {
    begin_rank_line(rank).put("Traceback (most recent call last):");
    sink_.for_rank(rank).end_line();
    begin_rank_line(rank).put("  File \"/opt/serve/worker.py\", line 218, in run_batch");
    sink_.for_rank(rank).end_line();
    begin_rank_line(rank).put("    logits = self.model(**batch)");
    sink_.for_rank(rank).end_line();
    begin_rank_line(rank).put(
        "  File \"/usr/lib/python3/dist-packages/torch/nn/modules/module.py\", line 1736, in _call_impl");
    sink_.for_rank(rank).end_line();
    begin_rank_line(rank).put("    return forward_call(*args, **kwargs)");
    sink_.for_rank(rank).end_line();
    BlockWriter& out = begin_rank_line(rank);
    out.put("torch.OutOfMemoryError: ");
    put_oom_message(out, rank);
    out.end_line();
  }

  void write_logged_oom_line(int rank) {
    BlockWriter& out = begin_rank_line(rank);
    out.put("ERROR ");
    put_python_time(out, clock_.now());
    out.put(" [worker.py:230] batch failed: ");
    put_oom_message(out, rank);
    out.end_line();
  }

  // tqdm bar; sometimes several frames joined by '\r' as tqdm writes them.
  void write_tqdm_line(int rank) {
    BlockWriter& out = begin_rank_line(rank);
    const std::string_view label = rng_.pick(tqdm_labels);
    const int total = 500 + static_cast<int>(rng_.below(9500));
    int done = static_cast<int>(rng_.below(static_cast<std::uint32_t>(total)));
    const int frames = rng_.below(4) == 0 ? rng_.between(2, 4) : 1;
    for (int frame = 0; frame < frames; ++frame) {
      if (frame > 0) out.put('\r');
      done = std::min(total, done + static_cast<int>(rng_.below(20)));
      put_tqdm_frame(out, label, done, total);
    }
    out.end_line();
  }

  void put_tqdm_frame(BlockWriter& out, std::string_view label, int done, int total) {
    static constexpr std::string_view eighths[] = {"",       "\u258f", "\u258e", "\u258d",
                                                   "\u258c", "\u258b", "\u258a", "\u2589"};
    constexpr int bar_width = 10;
    const int percent = done * 100 / total;
    const int filled_eighths = done * bar_width * 8 / total;
    out.put(label);
    out.put(": ");
    out.put_padded(percent, 3);
    out.put("%|");
    for (int i = 0; i < filled_eighths / 8; ++i) out.put("\u2588");
    int cells = filled_eighths / 8;
    if (cells < bar_width) {
      out.put(eighths[filled_eighths % 8]);
      if (filled_eighths % 8 != 0) ++cells;
      for (; cells < bar_width; ++cells) out.put(' ');
    }
    out.put("| ");
    out.put_uint(done);
    out.put('/');
    out.put_uint(total);
    const int elapsed = done / 2;
    const int remaining = (total - done) / 2;
    out.put(" [");
    put_minutes_seconds(out, elapsed);
    out.put('<');
    put_minutes_seconds(out, remaining);
    out.put(", ");
    out.put_fixed(1.8 + rng_.below(400) / 1000.0, 2);
    out.put("it/s]");
  }

  static void put_minutes_seconds(BlockWriter& out, int seconds) {
    out.put_padded(seconds / 60, 2, '0');
    out.put(':');
    out.put_padded(seconds % 60, 2, '0');
  }

  void write_python_warning_line(int rank) {
    BlockWriter& out = begin_rank_line(rank);
    out.put(rng_.pick(python_warnings));
    out.end_line();
  }

  void write_near_miss_line(int rank) {
    if (rng_.below(4) == 0) {
      BlockWriter& out = begin_nccl_line(rank);
      out.put(rng_.pick(nccl_benign_warnings));
      out.end_line();
      return;
    }
    BlockWriter& out = begin_rank_line(rank);
    const std::string_view text = rng_.pick(near_miss_texts);
    const std::size_t placeholder = text.find("{iter}");
    if (placeholder == std::string_view::npos) {
      out.put(text);
    } else {
      out.put(text.substr(0, placeholder));
      out.put_uint(iteration_);
      out.put(text.substr(placeholder + 6));
    }
    out.end_line();
  }

  // -- the failure ------------------------------------------------------------------------

  // Other ranks keep logging while the failing rank prints its traceback.
  void write_interleaved_lines(int failing_rank) {
    if (options_.ranks == 1 || !rng_.chance(0.6)) return;
    const int count = rng_.between(1, 3);
    for (int i = 0; i < count; ++i) write_ordinary_line(failing_rank);
  }

  void write_traceback_line(int rank, std::string_view text) {
    BlockWriter& out = begin_rank_line(rank);
    out.put(text);
    out.end_line();
  }

  void write_traceback_frame(int rank, const TracebackFrame& frame) {
    BlockWriter& frame_line = begin_rank_line(rank);
    frame_line.put("  File \"");
    frame_line.put(frame.file);
    frame_line.put("\", line ");
    frame_line.put_uint(frame.line);
    frame_line.put(", in ");
    frame_line.put(frame.function);
    frame_line.end_line();
    write_interleaved_lines(rank);
    BlockWriter& code_line = begin_rank_line(rank);
    code_line.put("    ");
    code_line.put(frame.code);
    code_line.end_line();
    write_interleaved_lines(rank);
  }

  void write_heads_traceback() {
    const int rank = options_.fault_rank;
    fault_time_ = clock_.now();
    write_traceback_line(rank, "Traceback (most recent call last):");
    write_interleaved_lines(rank);
    for (const auto& frame : heads_traceback_frames) write_traceback_frame(rank, frame);
    BlockWriter& out = begin_rank_line(rank);
    out.put("ValueError: Total number of attention heads (");
    out.put_uint(attention_heads);
    out.put(") must be divisible by tensor parallel size (");
    out.put_uint(bad_tensor_parallel_size);
    out.put(").");
    out.end_line();
    write_interleaved_lines(rank);
    write_destroy_process_group_warning(rank);
    if (options_.ranks == 1) return;
    for (int i = 0; i < 2 * options_.ranks; ++i) write_ordinary_line(rank);
  }

  void write_destroy_process_group_warning(int rank) {
    BlockWriter& out = begin_rank_line(rank, false);
    put_c10_header(out, clock_.now(), 'W', "ProcessGroupNCCL.cpp:1250");
    out.put(
        "Warning: WARNING: destroy_process_group() was not called before program exit, which "
        "can leak resources. For more info, please see "
        "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())");
    out.end_line();
  }

  // The surviving ranks block in the next all-reduce until the watchdog fires. Each writes
  // a fixed sequence of lines; the sequences of different ranks interleave randomly.
  void write_watchdog_timeouts() {
    clock_.advance_seconds(watchdog_timeout_ms / 1000);
    const std::uint64_t sequence_number = 3 * static_cast<std::uint64_t>(iteration_) + 7;
    std::vector<int> pending_ranks;
    std::vector<int> next_step(static_cast<std::size_t>(options_.ranks), 0);
    for (int rank = 0; rank < options_.ranks; ++rank) {
      if (rank != options_.fault_rank) pending_ranks.push_back(rank);
    }
    constexpr int steps_per_rank = 4;
    while (!pending_ranks.empty()) {
      const std::size_t index = rng_.below(static_cast<std::uint32_t>(pending_ranks.size()));
      const int rank = pending_ranks[index];
      clock_.advance_nanos(rng_.below(20000000));
      write_watchdog_step(rank, next_step[rank]++, sequence_number);
      if (next_step[rank] == steps_per_rank) {
        pending_ranks.erase(pending_ranks.begin() + static_cast<std::ptrdiff_t>(index));
      }
    }
  }

  void write_watchdog_step(int rank, int step, std::uint64_t sequence_number) {
    switch (step) {
      case 0:
        write_watchdog_timeout_line(rank, sequence_number);
        break;
      case 1:
        write_watchdog_exception_line(rank, sequence_number);
        break;
      case 2:
        write_taking_process_down_line(rank);
        break;
      default:
        write_terminate_lines(rank, sequence_number);
        break;
    }
  }

  void put_pg_prefix(BlockWriter& out, int rank) {
    out.put("[PG ID 0 PG GUID 0(default_pg) Rank ");
    out.put_uint(rank);
    out.put("] ");
  }

  void put_work_description(BlockWriter& out, std::uint64_t sequence_number) {
    out.put("WorkNCCL(SeqNum=");
    out.put_uint(sequence_number);
    out.put(", OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=");
    out.put_uint(watchdog_timeout_ms);
    out.put(") ran for ");
    out.put_uint(watchdog_timeout_ms + rng_.below(60));
    out.put(" milliseconds before timing out.");
  }

  void write_watchdog_timeout_line(int rank, std::uint64_t sequence_number) {
    BlockWriter& out = begin_rank_line(rank, false);
    put_c10_header(out, clock_.now(), 'E', "ProcessGroupNCCL.cpp:1664");
    put_pg_prefix(out, rank);
    out.put("Watchdog caught collective operation timeout: ");
    put_work_description(out, sequence_number);
    out.end_line();
  }

  void write_watchdog_exception_line(int rank, std::uint64_t sequence_number) {
    BlockWriter& out = begin_rank_line(rank, false);
    put_c10_header(out, clock_.now(), 'E', "ProcessGroupNCCL.cpp:1785");
    put_pg_prefix(out, rank);
    out.put("Exception (either an error or timeout) detected by watchdog at work: ");
    out.put_uint(sequence_number);
    out.put(", last enqueued NCCL work: ");
    out.put_uint(sequence_number);
    out.put(", last completed NCCL work: ");
    out.put_uint(sequence_number - 1);
    out.put('.');
    out.end_line();
  }

  void write_taking_process_down_line(int rank) {
    BlockWriter& out = begin_rank_line(rank, false);
    put_c10_header(out, clock_.now(), 'E', "ProcessGroupNCCL.cpp:630");
    put_pg_prefix(out, rank);
    out.put("To avoid data inconsistency, we are taking the entire process down.");
    out.end_line();
  }

  // std::terminate output bypasses the rank prefixes.
  void write_terminate_lines(int rank, std::uint64_t sequence_number) {
    BlockWriter& out = sink_.for_rank(rank);
    out.put("terminate called after throwing an instance of 'c10::DistBackendError'");
    out.end_line();
    out.put("  what():  ");
    put_pg_prefix(out, rank);
    out.put("Process group watchdog thread terminated with exception: [Rank ");
    out.put_uint(rank);
    out.put("] Watchdog caught collective operation timeout: ");
    put_work_description(out, sequence_number);
    out.end_line();
    out.put(
        "Exception raised from checkTimeout at "
        "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:632 (most recent call first):");
    out.end_line();
  }

  // torchrun's own lines: SIGTERMs, the failure, its traceback and the summary block.
  void write_agent_epilogue() {
    clock_.advance_seconds(2);
    const RankIdentity& failed = ranks_[options_.fault_rank];
    for (const RankIdentity& rank : ranks_) {
      if (rank.node != failed.node || rank.rank == failed.rank) continue;
      BlockWriter& out = sink_.for_rank(agent_rank);
      put_agent_header(out, clock_.now(), 'W', agent_pid_,
                       "torch/distributed/elastic/multiprocessing/api.py:897");
      out.put("Sending process ");
      out.put_uint(rank.pid);
      out.put(" closing signal SIGTERM");
      out.end_line();
    }
    clock_.advance_seconds(1);
    write_agent_failed_line(failed);
    write_agent_traceback();
    write_child_failed_summary(failed);
  }

  void write_agent_failed_line(const RankIdentity& failed) {
    BlockWriter& out = sink_.for_rank(agent_rank);
    put_agent_header(out, clock_.now(), 'E', agent_pid_,
                     "torch/distributed/elastic/multiprocessing/api.py:869");
    out.put("failed (exitcode: 1) local_rank: ");
    out.put_uint(failed.local_rank);
    out.put(" (pid: ");
    out.put_uint(failed.pid);
    out.put(") of binary: /usr/bin/python3");
    out.end_line();
  }

  void write_agent_traceback() {
    BlockWriter& out = sink_.for_rank(agent_rank);
    out.put("Traceback (most recent call last):");
    out.end_line();
    for (const auto& frame : agent_traceback_frames) {
      out.put("  File \"");
      out.put(frame.file);
      out.put("\", line ");
      out.put_uint(frame.line);
      out.put(", in ");
      out.put(frame.function);
      out.end_line();
      out.put("    ");
      out.put(frame.code);
      out.end_line();
    }
  }

  void write_child_failed_summary(const RankIdentity& failed) {
    BlockWriter& out = sink_.for_rank(agent_rank);
    const auto line = [&out](std::string_view text) {
      out.put(text);
      out.end_line();
    };
    line("torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ");
    line("============================================================");
    line("pretrain_gpt.py FAILED");
    line("------------------------------------------------------------");
    line("Failures:");
    line("  <NO_OTHER_FAILURES>");
    line("------------------------------------------------------------");
    line("Root Cause (first observed failure):");
    line("[0]:");
    out.put("  time      : ");
    put_ymd(out, fault_time_, '-');
    out.put('_');
    put_hms(out, fault_time_);
    out.end_line();
    out.put("  host      : node");
    out.put_uint(failed.node + 1);
    out.end_line();
    out.put("  rank      : ");
    out.put_uint(failed.rank);
    out.put(" (local_rank: ");
    out.put_uint(failed.local_rank);
    out.put(')');
    out.end_line();
    out.put("  exitcode  : 1 (pid: ");
    out.put_uint(failed.pid);
    out.put(')');
    out.end_line();
    line("  error_file: <N/A>");
    line("  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html");
    line("============================================================");
  }

  const Options& options_;
  Rng rng_;
  Clock clock_;
  Sink& sink_;
  double tee_share_;
  std::vector<RankIdentity> ranks_;
  std::uint32_t agent_pid_ = 0;
  std::uint64_t comm_id_ = 0;
  std::uint64_t comm_address_ = 0;
  int iteration_ = 0;
  std::uint64_t op_count_ = 0;
  CivilTime fault_time_{};
};

// ---------------------------------------------------------------------------------------
// Driver

void generate_job(const Options& options, std::uint64_t seed, std::uint64_t size_bytes, Sink& sink) {
  LogGenerator generator(options, seed, sink);
  if (options.dense == Dense::oom_spam) {
    generator.write_oom_spam_until(size_bytes);
    return;
  }
  if (options.dense == Dense::nccl_debug) {
    const std::uint64_t ending = options.fault == Fault::none ? 0 : generator.estimated_fault_ending_bytes();
    generator.write_nccl_debug_until(size_bytes > ending ? size_bytes - ending : 0);
    if (options.fault != Fault::none) generator.write_heads_fault_ending();
    return;
  }
  if (options.fault == Fault::none) {
    generator.write_ordinary_lines_until(size_bytes);
    return;
  }
  const std::uint64_t ending = generator.estimated_fault_ending_bytes();
  generator.write_ordinary_lines_until(size_bytes > ending ? size_bytes - ending : 0);
  generator.write_heads_fault_ending();
}

void generate_single_stream(const Options& options) {
  std::FILE* file = stdout;
  if (!options.output_path.empty()) {
    file = std::fopen(options.output_path.c_str(), "wb");
    if (file == nullptr) {
      std::perror(("genlog: cannot open " + options.output_path).c_str());
      std::exit(1);
    }
  }
  Sink sink = Sink::single_stream(file, file != stdout, options.ranks);
  generate_job(options, options.seed, options.size_bytes, sink);
}

std::string job_directory_name(int job) {
  std::string digits = std::to_string(job);
  if (digits.size() < 4) digits.insert(0, 4 - digits.size(), '0');
  return "job" + digits;
}

void generate_job_directories(const Options& options) {
  const std::uint64_t size_per_job = std::max<std::uint64_t>(1, options.size_bytes / options.job_count);
  for (int job = 0; job < options.job_count; ++job) {
    const std::filesystem::path dir = std::filesystem::path(options.out_dir) / job_directory_name(job);
    std::error_code error;
    std::filesystem::create_directories(dir, error);
    if (error) {
      std::fprintf(stderr, "genlog: cannot create %s: %s\n", dir.c_str(), error.message().c_str());
      std::exit(1);
    }
    Sink sink = Sink::file_per_rank(dir, options.ranks);
    generate_job(options, options.seed + static_cast<std::uint64_t>(job), size_per_job, sink);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse_options(argc, argv);
  if (options.job_count > 0) {
    generate_job_directories(options);
  } else {
    generate_single_stream(options);
  }
  return 0;
}
