#include <algorithm>

#include "rules/rule.hpp"

namespace faultline::rules {

// The cause ids of causes.md, with what each means.
const std::vector<Cause>& known_causes() {
  static const std::vector<Cause> kCauses = {
      {"tp.heads_not_divisible", "attention heads not divisible by the TP size"},
      {"tp.kv_heads_not_divisible",
       "key/value heads (GQA/MQA query groups) not divisible by, or incompatible with, the TP size"},
      {"tp.hidden_not_divisible", "hidden size not divisible by the TP size"},
      {"tp.vocab_not_divisible",
       "vocabulary (embedding / LM head) not divisible or not padded for the TP size"},
      {"tp.ffn_not_divisible",
       "FFN intermediate size, experts, or quantization group/block size not divisible per TP rank"},
      {"tp.size_exceeds_gpus", "TP×PP (×DP) larger than, or not matching, the GPUs visible / the world size"},
      {"tp.heterogeneous_gpus", "GPUs of different models or memory sizes in one TP group"},
      {"tp.checkpoint_shard_mismatch",
       "checkpoint saved with another TP/PP layout or model shape: size mismatch on load"},
      {"tp.pp_schedule_deadlock", "pipeline + tensor schedule mismatch: ranks wait on each other forever"},
      {"pp.layers_not_divisible", "layers not divisible by the pipeline-parallel size"},
      {"nccl.watchdog_timeout", "a collective timed out (hang) with no other cause in the logs"},
      {"nccl.collective_mismatch",
       "ranks called different collectives, or with different sizes/dtypes/order"},
      {"nccl.unhandled_system_error", "NCCL system error: sockets, InfiniBand, network interfaces"},
      {"nccl.internal_error", "NCCL internal error"},
      {"nccl.invalid_usage", "NCCL invalid usage (e.g. two ranks on one GPU)"},
      {"nccl.shm_p2p_failure", "shared memory (/dev/shm too small) or GPU peer-to-peer / IPC failure"},
      {"nccl.version_mismatch", "NCCL versions differ between ranks or from what the framework expects"},
      {"nccl.remote_rank_failed",
       "'remote process exited': collateral of a peer's failure, cause not in these logs"},
      {"cuda.oom", "CUDA out of memory"},
      {"cuda.illegal_memory_access", "illegal memory access / misaligned address"},
      {"cuda.device_assert", "device-side assert (often an index out of range)"},
      {"cuda.hardware_xid_ecc", "hardware fault: Xid, ECC, GPU fell off the bus"},
      {"cuda.driver_mismatch", "driver too old for the CUDA runtime, or mismatched libraries"},
      {"cuda.no_device", "no CUDA device visible, or fewer than required"},
      {"dist.rendezvous_failure", "process-group initialisation / rendezvous / port in use / store timeout"},
      {"dist.host_oom_killed", "a process killed by the host (SIGKILL, exit code -9, OOM killer)"},
      {"tp.sequence_not_divisible",
       "sequence (sequence parallel) or context-parallel / Ulysses dimension not divisible by the TP or CP "
       "size; fewer KV heads than CP ranks"},
      {"pp.microbatches_insufficient",
       "fewer micro-batches than pipeline stages, or an interleaved schedule's micro-batch constraint "
       "broken; a pipeline split with fewer stages than ranks"},
      {"nccl.nvls_fabric_failure",
       "NVSwitch / fabric manager / NVLS multicast not usable (nvls.cc failures, CUDA error 802 'system not "
       "yet initialized')"},
      {"dist.worker_signal",
       "a worker died from a signal other than SIGKILL or SIGTERM (SIGSEGV, SIGBUS, SIGILL, SIGABRT) and no "
       "other cause in the logs explains it"},
      {"io.storage_failure",
       "disk full, read-only or failing filesystem, NFS/object-store error, mostly at checkpoint save or "
       "load"},
      {"negative",
       "a healthy log: no failure may be reported (the cause of recovery rules, which are never reported)"},
      {"unrecognised",
       "an error that no rule knows: a traceback's exception, a fatal signal or a failing exit that matches "
       "no cause above"},
  };
  return kCauses;
}

const Cause* find_cause(std::string_view id) {
  const auto& causes = known_causes();
  auto it = std::find_if(causes.begin(), causes.end(), [&](const Cause& cause) { return cause.id == id; });
  return it == causes.end() ? nullptr : &*it;
}

bool is_known_cause(std::string_view cause) {
  return find_cause(cause) != nullptr;
}

}  // namespace faultline::rules
