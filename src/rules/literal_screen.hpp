// LiteralScreen: finds many literal strings in a block of bytes at once, for the sparse read of
// large logs (see Engine::sparse_screen). Built on Hyperscan where the build found it
// (libhyperscan-dev); without it, available() is false and callers read every line.
//
// Compile once, scan many: the screen is immutable and shared by threads; each thread scans
// with its own Scratch.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::rules {

class LiteralScreen {
 public:
  struct Literal {
    std::string text;
    bool caseless = false;
  };
  struct Hit {
    uint32_t end;      // offset just past the literal's last byte in the block
    uint32_t literal;  // index into the literals given to the constructor
  };
  // Per-thread working memory for scan().
  class Scratch {
   public:
    ~Scratch();
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;

   private:
    friend class LiteralScreen;
    Scratch() = default;
    void* scratch_ = nullptr;
  };

  explicit LiteralScreen(const std::vector<Literal>& literals);
  ~LiteralScreen();
  LiteralScreen(const LiteralScreen&) = delete;
  LiteralScreen& operator=(const LiteralScreen&) = delete;

  // False without Hyperscan, or when the literals did not compile (error() says why).
  bool available() const { return database_ != nullptr; }
  const std::string& error() const { return error_; }

  std::unique_ptr<Scratch> make_scratch() const;
  // Every occurrence of every literal in `block` (under 4 GiB), in order of end offset.
  // False when the scan failed: the caller must then treat every line as a candidate.
  bool scan(std::string_view block, Scratch& scratch, std::vector<Hit>& hits) const;

 private:
  void* database_ = nullptr;
  std::string error_;
};

}  // namespace faultline::rules
