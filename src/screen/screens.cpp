#include "screen/screens.hpp"

#include <algorithm>
#include <cstring>

#include "base/text.hpp"

namespace faultline::screen {

namespace {

constexpr std::string_view kMagic = "FLSCREEN";
constexpr uint32_t kFormat = 3;

// What the database depends on: each literal's text, case and stop, in order (not the owners).
uint64_t fingerprint(const Declarations& literals) {
  std::string text;
  for (const Declared& declared : literals) {
    text += declared.literal.text;
    text += '\0';
    text += static_cast<char>('0' + static_cast<int>(declared.literal.caseless));
    text += static_cast<char>('0' + static_cast<int>(declared.stop));
    text += '\x1e';
  }
  return fnv1a(text);
}

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

template <typename T>
bool get(std::string_view& bytes, T& value) {
  if (bytes.size() < sizeof value) return false;
  std::memcpy(&value, bytes.data(), sizeof value);
  bytes.remove_prefix(sizeof value);
  return true;
}

std::vector<LiteralScreen::Literal> texts_of(const Declarations& literals) {
  std::vector<LiteralScreen::Literal> texts;
  texts.reserve(literals.size());
  for (const Declared& declared : literals) texts.push_back(declared.literal);
  return texts;
}

}  // namespace

Screens::Screens(std::function<std::optional<Declarations>()> declare, std::string_view prebuilt)
    : declare_(std::move(declare)), prebuilt_bytes_(prebuilt) {}

Screens::~Screens() = default;

const Declarations* Screens::literals() const {
  std::call_once(declared_once_, [this] {
    literals_ = declare_();
    if (literals_ && literals_->empty()) literals_.reset();
    if (!literals_) return;
    for (Declared& declared : *literals_) {  // so that one literal's hit names its owners sorted
      std::sort(declared.owners.begin(), declared.owners.end());
      declared.owners.erase(std::unique(declared.owners.begin(), declared.owners.end()),
                            declared.owners.end());
    }
  });
  return literals_ ? &*literals_ : nullptr;
}

std::string Screens::prebuild(const Declarations& literals) {
  if (literals.empty()) return {};
  LiteralScreen screen(texts_of(literals));
  std::string database = screen.serialize();
  if (database.empty()) return {};
  std::string out(kMagic);
  put(out, kFormat);
  put(out, fingerprint(literals));
  put(out, static_cast<uint64_t>(database.size()));
  out += database;
  return out;
}

const LiteralScreen* Screens::prebuilt() const {
  std::call_once(prebuilt_once_, [this] {
    std::string_view bytes = prebuilt_bytes_;
    if (!bytes.starts_with(kMagic)) return;
    bytes.remove_prefix(kMagic.size());
    uint32_t format = 0;
    uint64_t made_for = 0;
    uint64_t size = 0;
    if (!get(bytes, format) || format != kFormat || !get(bytes, made_for) || !get(bytes, size) ||
        size != bytes.size()) {
      return;
    }
    const Declarations* declared = literals();
    if (!declared || made_for != fingerprint(*declared)) return;
    auto screen = LiteralScreen::deserialize(texts_of(*declared), bytes);
    if (screen->available()) prebuilt_ = std::move(screen);
  });
  return prebuilt_.get();
}

const LiteralScreen* Screens::sampled(std::string_view sample) const {
  int state = sampled_state_.load(std::memory_order_acquire);
  if (state == kUnbuilt &&
      sampled_state_.compare_exchange_strong(state, kBuilding, std::memory_order_acq_rel)) {
    if (const Declarations* declared = literals()) {
      auto screen = std::make_unique<LiteralScreen>(texts_of(*declared), sample);
      if (screen->available()) sampled_ = std::move(screen);
    }
    sampled_state_.store(kBuilt, std::memory_order_release);
    state = kBuilt;
  }
  return state == kBuilt ? sampled_.get() : nullptr;
}

const LiteralScreen* Screens::ready() const {
  if (const LiteralScreen* screen = prebuilt()) return screen;
  return sampled_built() ? sampled() : nullptr;
}

}  // namespace faultline::screen
