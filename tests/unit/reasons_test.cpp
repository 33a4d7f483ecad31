// The words of confidence reasons (src/report/reasons.hpp): each kind of
// correlate::ConfidenceReason, built by hand, said as every report says it.
#include "report/reasons.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using faultline::report::reason_text;
using faultline::report::reasons_text;
using Reason = faultline::correlate::ConfidenceReason;
using Kind = Reason::Kind;

TEST_CASE("the rule a diagnosis rests on is named in its reason") {
  CHECK(reason_text(Reason(Kind::kRootCauseRule).set("rule", "tp.heads_not_divisible.vllm")) ==
        "matched root-cause rule tp.heads_not_divisible.vllm");
  CHECK(reason_text(Reason(Kind::kSymptomsOnly).set("rule", "nccl.watchdog_timeout.test")) ==
        "only symptoms were found (nccl.watchdog_timeout.test); the cause may be outside these logs");
  CHECK(reason_text(Reason(Kind::kUnrecognisedError).set("rule", "unrecognised.python_traceback")) ==
        "no rule knows this error; unrecognised.python_traceback reports it as it stands");
  CHECK(reason_text(Reason(Kind::kOtherRootCauses).set("count", 2)) ==
        "2 other root-cause finding(s) in the job");
  CHECK(reason_text(Reason(Kind::kBaselineSetAside).set("count", 3)) ==
        "3 report(s) also seen in the baseline run were set aside");
}

TEST_CASE("the reporters of a failure are said as ranks, with processes that name none") {
  CHECK(reason_text(Reason(Kind::kNoRankNamed)) == "no line names the rank that reported it");
  CHECK(reason_text(Reason(Kind::kOnlyRankReporting).set("rank", 3)) == "only rank 3 reported it");
  CHECK(reason_text(Reason(Kind::kOnlyRankReporting).set("rank", 4).set("unranked_copies", true)) ==
        "only rank 4 reported it (other copies name no rank)");
  CHECK(reason_text(Reason(Kind::kReportedUnordered).set("ranks", std::vector<int>{0, 1, 2})) ==
        "ranks 0-2 all reported it and no timestamps order them");
  CHECK(
      reason_text(Reason(Kind::kReportedUnordered).set("ranks", std::vector<int>{4}).set("unranked", true)) ==
      "rank(s) 4 and processes with no rank all reported it and no timestamps order them");
  CHECK(reason_text(Reason(Kind::kReportedSameSecond).set("ranks", std::vector<int>{0, 1})) ==
        "ranks 0,1 all reported it within the same second");
  CHECK(reason_text(Reason(Kind::kReportedSameSecondAligned).set("ranks", std::vector<int>{1, 5})) ==
        "ranks 1,5 all reported it within a second of each other, once host clocks are aligned");
  CHECK(reason_text(Reason(Kind::kEarliestNamesNoRank)) == "the earliest report names no rank");
}

TEST_CASE("the first reporter is said with its time and the runner-up's") {
  Reason first(Kind::kReportedFirst);
  first.set("rank", 1)
      .set("at", "2026-11-29T10:22:33Z")
      .set("other_rank", 0)
      .set("other_at", "2026-11-29T10:22:34Z");
  CHECK(reason_text(first) ==
        "rank 1 reported it first, at 2026-11-29T10:22:33Z, before rank 0 at 2026-11-29T10:22:34Z");
  first.set("inherited", true);
  CHECK(reason_text(first) ==
        "rank 1 reported it first, at 2026-11-29T10:22:33Z, before rank 0 at 2026-11-29T10:22:34Z"
        " (from the timestamps of the lines before the errors)");
  Reason unranked(Kind::kReportedFirst);
  unranked.set("rank", 2).set("at", "10:00:01").set("other_at", "10:00:02");
  CHECK(reason_text(unranked) ==
        "rank 2 reported it first, at 10:00:01, before a process with no rank at 10:00:02");
}

TEST_CASE("on the common clock, the first reporter is said with its host's offset and the clock skew") {
  Reason first(Kind::kReportedFirstAligned);
  first.set("rank", 5).set("at", "2026-11-29T10:22:32Z").set("host", "node-b").set("clock_offset", 5);
  first.set("seconds_before", 3).set("other_rank", 1).set("other_at", "2026-11-29T10:22:30Z");
  first.set("other_host", "node-a");
  CHECK(reason_text(first) ==
        "rank 5 reported it first, at 2026-11-29T10:22:32Z on node-b (node-b's clock runs 5 s ahead), 3 s "
        "before "
        "rank 1 at 2026-11-29T10:22:30Z on node-a");
  Reason skew(Kind::kClockSkewMattered);
  skew.set("hosts", std::vector<std::string>{"node-b", "node-a"}).set("offsets", std::vector<int64_t>{5, -2});
  skew.set("op", "ALLREDUCE")
      .set("seq", 1580)
      .set("basis_ranks", 5)
      .set("basis_hosts", 3)
      .set("other_rank", 1);
  CHECK(reason_text(skew) ==
        "clock skew mattered: node-b's clock runs 5 s ahead, node-a's clock runs 2 s behind (estimated from "
        "the "
        "watchdog timeouts of ALLREDUCE SeqNum 1580 on 5 ranks across 3 hosts); by the raw timestamps rank 1 "
        "would look first");
  skew.set("op", "");
  CHECK(reason_text(skew).find("the watchdog timeouts of the collective SeqNum 1580") != std::string::npos);
}

TEST_CASE("collective timeouts and NCCL work counters are said with their numbers") {
  CHECK(reason_text(Reason(Kind::kSilentInCollective)
                        .set("ranks", std::vector<int>{0, 1, 3})
                        .set("seq", 7)
                        .set("rank", 2)) ==
        "ranks 0,1,3 timed out in SeqNum 7; rank 2 did not, so it never reached that collective");
  Reason missing(Kind::kSilentMissingRank);
  missing.set("ranks", std::vector<int>{0, 1, 3}).set("seq", 1580).set("rank", 2);
  CHECK(reason_text(missing) ==
        "every rank that logged (ranks 0,1,3) timed out in SeqNum 1580; rank 2 logged nothing, so it is the "
        "suspect: it never reached that collective (weak evidence: its log may only be missing)");
  missing.set("world_size", 4);
  CHECK(reason_text(missing).starts_with("every rank that logged (ranks 0,1,3 of a world of 4) timed out"));
  CHECK(reason_text(Reason(Kind::kFewestCompleted).set("rank", 6).set("work", 41)) ==
        "rank 6 completed the fewest NCCL work items (41): it fell behind first");
  Reason never(Kind::kNeverReachedCollective);
  never.set("rank", 3).set("seq", 1580).set("ranks", std::vector<int>{1}).set("others", 2);
  CHECK(reason_text(never) ==
        "rank 3 never reached collective SeqNum 1580, in which rank 1 and 2 other rank(s) timed out");
  CHECK(reason_text(Reason(Kind::kLeastWork).set("rank", 2).set("counter", "enqueued").set("work", 12)) ==
        "rank 2 had enqueued the least NCCL work (12) of the ranks that reported it");
  Reason enqueued(Kind::kBehindInWork);
  enqueued.set("rank", 2).set("counter", "last_enqueued").set("work", 4486);
  enqueued.set("other_work", std::vector<int64_t>{4490}).set("other_ranks", std::vector<int>{0, 1, 3});
  CHECK(reason_text(enqueued) ==
        "rank 2 enqueued the least NCCL work (last enqueued work 4486, against 4490 on ranks 0,1,3): it is "
        "behind, and the others wait for it (weaker than a rank's own error)");
  Reason outstanding(Kind::kBehindInWork);
  outstanding.set("rank", 0).set("counter", "outstanding_works").set("work", 84);
  outstanding.set("other_work", std::vector<int64_t>{90, 103}).set("other_ranks", std::vector<int>{1, 2});
  CHECK(reason_text(outstanding)
            .starts_with("rank 0 had the fewest NCCL works outstanding (workMetaList_.size() 84, against 90, "
                         "103 on ranks 1,2)"));
}

TEST_CASE("a reason that speaks against the one before it is said with but") {
  Reason never(Kind::kNeverReachedCollective);
  never.set("rank", 3).set("seq", 9).set("ranks", std::vector<int>{1}).set("others", 0).set("contrary", true);
  CHECK(reasons_text({Reason(Kind::kOnlyRankReporting).set("rank", 1), never}) ==
        "only rank 1 reported it; but rank 3 never reached collective SeqNum 9, in which rank 1 and 0 other "
        "rank(s) "
        "timed out");
  CHECK(reason_text(Reason(Kind::kVictimSetAside).set("rank", 1).set("ranks", std::vector<int>{0})) ==
        "but rank 1 only timed out or was stopped (a victim), while rank 0 reported errors of their own: no "
        "rank "
        "is named");
}

TEST_CASE("the clues that name a rank when the failure's lines do not are said with what they rest on") {
  CHECK(reason_text(Reason(Kind::kRelayNamesRank).set("rank", 4)) ==
        "the error names no rank; the other report of the same cause names only rank 4");
  Reason entry(Kind::kRootCauseEntry);
  entry.set("rank", 5).set("local_rank", 1).set("host", "node-b").set("exit_code", 1).set("line", 18);
  CHECK(
      reason_text(entry) ==
      "torchelastic's failure summary names rank 5 (local rank 1 on node-b), exit code 1, as its Root Cause "
      "(first observed failure) (line 18): the agent's view, weaker than a rank's own error (it orders "
      "failures by the whole-second times of their error files)");
  CHECK(reason_text(Reason(Kind::kRootCauseEntry)
                        .set("rank", 5)
                        .set("host", "node-b")
                        .set("exit_code", 1)
                        .set("line", 18))
            .starts_with("torchelastic's failure summary names rank 5 (on node-b), exit code 1"));
  CHECK(reason_text(Reason(Kind::kOnlyRankInLogs).set("rank", 0)) ==
        "the error names no rank, and rank 0 is the only rank in these logs");
  CHECK(reason_text(Reason(Kind::kLauncherLocalRank).set("local_rank", 2)) ==
        "the launcher names local rank 2, and the logs show one node at most, where local and global ranks "
        "agree");
  CHECK(reason_text(Reason(Kind::kOneProcessDevice).set("pid", 4242).set("device", 3)) ==
        "the error names no rank; the one process that reported it (pid 4242) drives CUDA device 3 of the "
        "one host "
        "in these logs, and with one GPU per process that is local rank 3, the global rank on one node");
  Reason peer(Kind::kLostPeer);
  peer.set("reporters", std::vector<int>{0, 1, 2}).set("peer", "node-b").set("host", "node-b");
  peer.set("peer_ranks", std::vector<int>{2, 3}).set("rank", 3).set("reported_it", false);
  CHECK(reason_text(peer) ==
        "NCCL on ranks 0-2 lost its peer node-b (host node-b, where the logs show ranks 2,3), and rank 3 is "
        "the "
        "only one there that reported no error itself");
  peer.set("reporters", std::vector<int>{}).set("reported_it", true);
  CHECK(reason_text(peer).starts_with("NCCL lost its peer node-b"));
  CHECK(reason_text(peer).ends_with("that reported it"));
  Reason signals(Kind::kNotSignalled);
  signals.set("pids", std::vector<int64_t>{140281, 140282, 140284}).set("host", "gpu-node-07");
  signals.set("pid", 140283).set("rank", 2);
  CHECK(reason_text(signals) ==
        "the launcher sent its closing signal to pids 140281, 140282, 140284 on gpu-node-07 but not to pid "
        "140283, "
        "rank 2 (by its NCCL lines): it had already exited (weak evidence)");
  Reason engine(Kind::kEngineRankLine);
  engine.set("rank", 2).set("pid", 3562).set("host", "10.0.0.2").set("world_size", 4).set("line", 2);
  CHECK(
      reason_text(engine) ==
      "rank 2 by its worker's pid: process 3562 on 10.0.0.2 printed the engine's own rank line, rank 2 in a "
      "world of 4 (line 2); its lines' prefix names no rank (weaker than a rank prefix)");
}

TEST_CASE("a rank clue is said with what the line shows, how it maps to a rank, and how strong it is") {
  Reason device(Kind::kRankClue);
  device.set("rank", 13).set("clue", "error_device").set("mapping", "host_block").set("index", 5);
  device.set("host", "node-b").set("host_ranks", std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
  CHECK(
      reason_text(device) ==
      "rank 13 by its line's clue: the error names CUDA device 5 on node-b; that host's ranks are 8-15, one "
      "block per host, and with one GPU per process the device is the local rank (weak evidence, weaker than "
      "a rank prefix)");
  Reason nccl(Kind::kRankClue);
  nccl.set("rank", 2)
      .set("clue", "nccl_device")
      .set("mapping", "one_host")
      .set("index", 2)
      .set("host", "gpu-a17");
  CHECK(
      reason_text(nccl) ==
      "rank 2 by its line's clue: its NCCL line runs on CUDA device [2] on gpu-a17; the logs show one host, "
      "where local and global ranks agree, and with one GPU per process the device is the local rank (weak "
      "evidence, weaker than a rank prefix)");
  Reason lines(Kind::kRankClue);
  lines.set("rank", 9).set("clue", "error_device").set("mapping", "device_lines").set("index", 1);
  CHECK(
      reason_text(lines) ==
      "rank 9 by its line's clue: the error names CUDA device 1; NCCL lines show rank 9 on that device (weak "
      "evidence, weaker than a rank prefix)");
  Reason local(Kind::kRankClue);
  local.set("rank", 3).set("clue", "local_rank").set("mapping", "one_host").set("index", 3);
  CHECK(reason_text(local) ==
        "rank 3 by its line's clue: the launcher names local rank 3; the logs show one host, where local and "
        "global ranks agree (weaker than a rank prefix)");
  Reason process(Kind::kRankClue);
  process.set("rank", 6)
      .set("clue", "process")
      .set("mapping", "pid_table")
      .set("pid", 31842)
      .set("host", "n1");
  CHECK(
      reason_text(process) ==
      "rank 6 by its line's clue: the line is about process 31842 on n1, which the job's table of processes "
      "knows as rank 6 (from the logs' own lines for that pid; weaker than a rank prefix)");
}

TEST_CASE("what a layout cause's dimension rests on is said with the frame or the job's own line") {
  CHECK(reason_text(Reason(Kind::kTracebackFrame).set("site", "megatron/core/utils.py:divide")) ==
        "the traceback's frame megatron/core/utils.py:divide names what failed");
  CHECK(reason_text(Reason(Kind::kTracebackFrame)) == "the traceback's frame names what failed");
  CHECK(
      reason_text(Reason(Kind::kJobPrinted).set("name", "heads").set("value", int64_t{32}).set("line", 12)) ==
      "32 is the heads the job printed (line 12)");
  CHECK(reason_text(Reason(Kind::kMagnitudePrior)) ==
        "no message or frame named the dimension: it is a prior from the number's size");
}

TEST_CASE("every kind has a name for the JSON and words") {
  for (int kind = 0; kind <= static_cast<int>(Kind::kMagnitudePrior); ++kind) {
    Reason reason(static_cast<Kind>(kind));
    CAPTURE(kind);
    CHECK(std::string(faultline::correlate::to_string(reason.kind)) != "unknown");
    CHECK_FALSE(reason_text(reason).empty());
  }
}
