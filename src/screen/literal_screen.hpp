// LiteralScreen: finds many literal strings in a block of bytes at once, for the sparse read of
// large logs (sparse_reader.hpp) and for picking an event's candidate rules. Built on Hyperscan
// where the build found it (libhyperscan-dev): this folder is the only user of Hyperscan. Without
// it, available() is false and callers read every line.
//
// Hyperscan's literal matcher slows down as the literals grow in number (about 300 caseless
// ones for the shipped rules). Given a sample of the text to come, the screen looks instead for
// fewer, shorter strings, its anchors: each literal is given one of its own substrings, chosen
// so that few anchors cover every literal and the anchors are rare in the sample. A hit on an
// anchor is confirmed by comparing each literal it stands for with the bytes around it, so
// scan() reports exactly the hits that a search for the literals themselves would: the sample
// changes the speed, never the result.
//
// Compile once, scan many: the screen is immutable and shared by threads; each thread scans
// with Hyperscan working memory of its own.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::screen {

class LiteralScreen {
 public:
  struct Literal {
    std::string text;
    bool caseless = false;  // ASCII letters only, as Hyperscan folds them
  };
  struct Hit {
    uint32_t end;      // offset just past the literal's last byte in the block
    uint32_t literal;  // index into the literals given to the constructor
  };
  // Without a sample, every literal is its own anchor.
  explicit LiteralScreen(const std::vector<Literal>& literals, std::string_view sample = {});
  ~LiteralScreen();
  LiteralScreen(const LiteralScreen&) = delete;
  LiteralScreen& operator=(const LiteralScreen&) = delete;

  // False without Hyperscan, or when the literals did not compile (error() says why).
  bool available() const { return database_ != nullptr; }
  // Whether this build has Hyperscan at all (libhyperscan-dev was found).
  static bool built_in();
  const std::string& error() const { return error_; }
  // How many strings the screen looks for.
  size_t anchor_count() const { return anchors_.size(); }
  // Every occurrence of every literal in `block` (under 4 GiB), in no particular order.
  // False when the scan failed: the caller must then treat every line as a candidate.
  bool scan(std::string_view block, std::vector<Hit>& hits) const;

  // A literal that an anchor stands for, `offset` bytes into it.
  struct Member {
    uint32_t literal;
    uint32_t offset;
  };
  struct Anchor {
    std::string text;
    bool caseless = false;
    std::vector<Member> members;
  };
  // The anchors chosen for `literals` given `sample` (greedy weighted set cover: each step takes
  // the 8-byte substring with the fewest occurrences in the sample, plus a fixed cost per anchor,
  // per literal it newly covers). Public for tests.
  static std::vector<Anchor> choose_anchors(const std::vector<Literal>& literals, std::string_view sample);

  // A screen made without a sample, as bytes (Hyperscan's serialized database); empty when
  // unavailable.
  std::string serialize() const;
  // The screen of `literals` that serialize() gave as `bytes`. Not available() when they do not
  // load here (another Hyperscan version, a CPU without the instructions they were built for).
  static std::unique_ptr<LiteralScreen> deserialize(const std::vector<Literal>& literals,
                                                    std::string_view bytes);

 private:
  LiteralScreen() = default;
  std::vector<Anchor> anchors_;
  std::vector<Literal> literals_;
  void* database_ = nullptr;
  std::string error_;
  uint64_t id_ = next_id();  // unique in the process: which screens a thread's scratch serves
  static uint64_t next_id();
};

}  // namespace faultline::screen
