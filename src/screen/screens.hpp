// Screens: the literals that the stages of a job declare they need, and the literal screens of
// them that the sparse read and an event's rule picking scan with. The screen knows no Rule, Line
// or Event: a literal carries what a hit on it asks of the sparse read (Stop) and opaque owner
// ids, the declaring stage's own (the rules give rule indices); a scan says which literals, and so
// which owners, a text holds. The contract: a hit may be a false positive, never a false negative.
//
// Two screens of the same literals, with the same hits: a prebuilt one (each literal its own
// anchor, compiled when faultline was built, ready at once) and a sampled one (built from a
// sample of the text to come, which looks for fewer strings and scans faster; ~25 ms to build).
// Built on first use, then shared: a Screens is thread-safe, and the jobs of a scan share one.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "screen/literal_screen.hpp"

namespace faultline::screen {

// What a hit on a literal asks of the sparse read (sparse_reader.hpp).
enum class Stop : uint8_t {
  kRead,        // the line holding it is read, with the few lines before it
  kLesson,      // the line is read alone, unless the stretch around the hit repeats one read already
  kPass,        // the skip does not stop for it; it names its owners in a line read for another reason
  kWholeBlock,  // a block holding it is not screened: every line of it is read
};

struct Declared {
  LiteralScreen::Literal literal;
  Stop stop = Stop::kRead;
  std::vector<uint32_t> owners;  // opaque ids of the declaring stage; may be empty
};
using Declarations = std::vector<Declared>;

class Screens {
 public:
  // `declare` gives the literals when they are first needed, once; nullopt when some need has no
  // literal to stand for it (then no screen is made and every line is read). `prebuilt`: bytes of
  // prebuild() for the same literals, or empty; they must outlive the Screens.
  Screens(std::function<std::optional<Declarations>()> declare, std::string_view prebuilt);
  Screens(const Screens&) = delete;
  Screens& operator=(const Screens&) = delete;
  ~Screens();

  // Null when no screen can stand for every need.
  const Declarations* literals() const;
  // The prebuilt screen, when its bytes were made for these literals and load here; else null.
  const LiteralScreen* prebuilt() const;
  // The sampled screen. The first caller builds it from its `sample`; null while another thread
  // builds it (read on with prebuilt()), and when it cannot be built (no Hyperscan, no literals).
  const LiteralScreen* sampled(std::string_view sample = {}) const;
  // Whether the sampled screen was built already: then sampled() costs nothing.
  bool sampled_built() const { return sampled_state_.load(std::memory_order_acquire) == kBuilt; }
  // The screen that picks an event's candidates: the prebuilt one, else the sampled one if built.
  const LiteralScreen* ready() const;

  // The screen of `literals`, each its own anchor, as bytes for the constructor; empty without
  // Hyperscan. The bytes name the literals they were made for (text, case and stop, in order).
  static std::string prebuild(const Declarations& literals);

 private:
  std::function<std::optional<Declarations>()> declare_;
  std::string_view prebuilt_bytes_;
  mutable std::once_flag declared_once_;
  mutable std::optional<Declarations> literals_;
  mutable std::once_flag prebuilt_once_;
  mutable std::unique_ptr<LiteralScreen> prebuilt_;
  enum SampledState : int { kUnbuilt, kBuilding, kBuilt };
  mutable std::atomic<int> sampled_state_{kUnbuilt};
  mutable std::unique_ptr<LiteralScreen> sampled_;
};

}  // namespace faultline::screen
