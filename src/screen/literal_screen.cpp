#include "screen/literal_screen.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <unordered_map>

#ifdef FAULTLINE_HAVE_HYPERSCAN
#include <hs.h>
#endif

namespace faultline::screen {

namespace {

// Anchors are 8 bytes long, or a whole literal shorter than that. Shorter ones are shared by
// more literals but recur more often in ordinary text, and Hyperscan scans a set of long
// literals faster: on a training log, ~100 anchors of 8 bytes scan at 1.7-1.8 GB/s where ~80 of
// 5 to 8 bytes scan at 1.5-1.6 and ~55 of 3 to 8 at 1.0 (and compile in 3 ms rather than 14).
constexpr size_t kShortestAnchor = 8;
constexpr size_t kLongestAnchor = 8;
// What one more anchor costs the literal matcher, in occurrences in the sample.
constexpr double kAnchorCost = 4;

char fold(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

std::string folded(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = fold(c);
  return out;
}

// At most 8 bytes as one integer, so that grams are counted with one table lookup each.
uint64_t packed(const char* bytes, size_t length) {
  uint64_t value = 0;
  std::memcpy(&value, bytes, length);
  return value;
}

// Candidate anchors of one length and case, and how often each occurs in the sample: an open
// addressing table from packed bytes to the gram's index.
class GramCounter {
 public:
  void add(uint64_t key, uint32_t gram) { entries_.push_back({key, gram}); }

  // Counts every window of `length` bytes of `text` that is a gram (text padded by 8 bytes).
  void count(std::string_view text, size_t length, std::vector<size_t>& occurrences) {
    if (entries_.empty() || text.size() < length) return;
    size_t capacity = 16;
    while (capacity < 2 * entries_.size()) capacity *= 2;
    std::vector<Entry> table(capacity, Entry{0, kEmpty});
    for (const auto& entry : entries_) {
      size_t slot = slot_of(entry.key, capacity);
      while (table[slot].gram != kEmpty) slot = (slot + 1) & (capacity - 1);
      table[slot] = entry;
    }
    uint64_t mask = length == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * length)) - 1;
    for (size_t i = 0; i + length <= text.size(); ++i) {
      uint64_t key = packed(text.data() + i, 8) & mask;
      for (size_t slot = slot_of(key, capacity); table[slot].gram != kEmpty;
           slot = (slot + 1) & (capacity - 1)) {
        if (table[slot].key == key) {
          ++occurrences[table[slot].gram];
          break;
        }
      }
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Entry {
    uint64_t key;
    uint32_t gram;
  };
  static size_t slot_of(uint64_t key, size_t capacity) {
    return static_cast<size_t>((key * 0x9e3779b97f4a7c15ull) >> 32) & (capacity - 1);
  }
  std::vector<Entry> entries_;
};

}  // namespace

uint64_t LiteralScreen::next_id() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::vector<LiteralScreen::Anchor> LiteralScreen::choose_anchors(const std::vector<Literal>& literals,
                                                                 std::string_view sample) {
  // Every candidate: each substring of each literal, caseless for a caseless literal and both
  // ways for the others, with the literals it occurs in (at its first offset in each).
  std::vector<Anchor> grams;
  std::unordered_map<uint64_t, uint32_t> index[2][kLongestAnchor + 1];  // by case, length, bytes
  auto offer = [&](std::string_view text, bool caseless, uint32_t literal, uint32_t offset) {
    auto [it, added] = index[caseless][text.size()].emplace(packed(text.data(), text.size()),
                                                            static_cast<uint32_t>(grams.size()));
    if (added) grams.push_back({std::string(text), caseless, {}});
    auto& members = grams[it->second].members;
    if (members.empty() || members.back().literal != literal) members.push_back({literal, offset});
  };
  for (uint32_t i = 0; i < literals.size(); ++i) {
    const Literal& literal = literals[i];
    for (bool caseless : {true, false}) {
      if (!caseless && literal.caseless) continue;
      std::string text = caseless ? folded(literal.text) : literal.text;
      if (text.size() <= kShortestAnchor) {
        offer(text, caseless, i, 0);
        continue;
      }
      for (size_t length = kShortestAnchor; length <= std::min(kLongestAnchor, text.size()); ++length) {
        for (size_t offset = 0; offset + length <= text.size(); ++offset) {
          offer(std::string_view(text).substr(offset, length), caseless, i, static_cast<uint32_t>(offset));
        }
      }
    }
  }

  // Their occurrences in the sample, one pass per length and case.
  std::vector<size_t> occurrences(grams.size(), 0);
  std::string padded_sample(sample);
  std::string padded_folded = folded(sample);
  padded_sample.append(8, '\0');
  padded_folded.append(8, '\0');
  for (bool caseless : {true, false}) {
    for (size_t length = 1; length <= kLongestAnchor; ++length) {
      GramCounter counter;
      for (uint32_t g = 0; g < grams.size(); ++g) {
        if (grams[g].caseless == caseless && grams[g].text.size() == length) {
          counter.add(packed(grams[g].text.data(), length), g);
        }
      }
      const std::string& text = caseless ? padded_folded : padded_sample;
      counter.count(std::string_view(text.data(), sample.size()), length, occurrences);
    }
  }

  // Greedy weighted set cover: the cheapest anchor per literal it newly covers, until all are.
  // Lazily: a gram's cost only grows as others cover its literals, so a gram whose recomputed
  // cost is still the least in the queue is the best one.
  std::vector<bool> covered(literals.size(), false);
  auto gained = [&](const Anchor& gram) {
    size_t count = 0;
    for (const auto& member : gram.members) count += !covered[member.literal];
    return count;
  };
  auto cost = [&](uint32_t g, size_t gain) {
    return (kAnchorCost + static_cast<double>(occurrences[g])) / static_cast<double>(gain);
  };
  struct Candidate {
    double cost;
    uint32_t gram;
  };
  // Cheapest first; then the longer gram (rarer in text the sample did not show); then the first.
  auto after = [&](const Candidate& a, const Candidate& b) {
    if (a.cost != b.cost) return a.cost > b.cost;
    if (grams[a.gram].text.size() != grams[b.gram].text.size())
      return grams[a.gram].text.size() < grams[b.gram].text.size();
    return a.gram > b.gram;
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(after)> queue(after);
  for (uint32_t g = 0; g < grams.size(); ++g) queue.push({cost(g, grams[g].members.size()), g});
  std::vector<Anchor> anchors;
  while (!queue.empty()) {
    Candidate top = queue.top();
    queue.pop();
    size_t gain = gained(grams[top.gram]);
    if (gain == 0) continue;
    if (double now = cost(top.gram, gain); now != top.cost) {
      queue.push({now, top.gram});
      continue;
    }
    Anchor anchor{grams[top.gram].text, grams[top.gram].caseless, {}};
    for (const auto& member : grams[top.gram].members) {
      if (covered[member.literal]) continue;
      covered[member.literal] = true;
      anchor.members.push_back(member);
    }
    anchors.push_back(std::move(anchor));
  }
  return anchors;
}

#ifdef FAULTLINE_HAVE_HYPERSCAN

LiteralScreen::LiteralScreen(const std::vector<Literal>& literals, std::string_view sample)
    : literals_(literals) {
  if (literals.empty()) {
    error_ = "no literals";
    return;
  }
  if (sample.empty()) {
    for (uint32_t i = 0; i < literals.size(); ++i)
      anchors_.push_back({literals[i].text, literals[i].caseless, {{i, 0}}});
  } else {
    anchors_ = choose_anchors(literals, sample);
  }
  std::vector<const char*> texts;
  std::vector<size_t> lengths;
  std::vector<unsigned> flags;
  std::vector<unsigned> ids;
  for (size_t i = 0; i < anchors_.size(); ++i) {
    texts.push_back(anchors_[i].text.data());
    lengths.push_back(anchors_[i].text.size());
    flags.push_back(anchors_[i].caseless ? HS_FLAG_CASELESS : 0u);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_database_t* database = nullptr;
  hs_compile_error_t* compile_error = nullptr;
  if (hs_compile_lit_multi(texts.data(), flags.data(), ids.data(), lengths.data(),
                           static_cast<unsigned>(texts.size()), HS_MODE_BLOCK, nullptr, &database,
                           &compile_error) != HS_SUCCESS) {
    error_ = compile_error ? compile_error->message : "Hyperscan could not compile the literals";
    hs_free_compile_error(compile_error);
    return;
  }
  database_ = database;
}

LiteralScreen::~LiteralScreen() {
  hs_free_database(static_cast<hs_database_t*>(database_));
}

std::string LiteralScreen::serialize() const {
  char* bytes = nullptr;
  size_t length = 0;
  if (!database_ ||
      hs_serialize_database(static_cast<const hs_database_t*>(database_), &bytes, &length) != HS_SUCCESS) {
    return {};
  }
  std::string out(bytes, length);
  std::free(bytes);  // Hyperscan's default allocator is malloc
  return out;
}

std::unique_ptr<LiteralScreen> LiteralScreen::deserialize(const std::vector<Literal>& literals,
                                                          std::string_view bytes) {
  std::unique_ptr<LiteralScreen> screen(new LiteralScreen());
  screen->literals_ = literals;
  for (uint32_t i = 0; i < literals.size(); ++i)
    screen->anchors_.push_back({literals[i].text, literals[i].caseless, {{i, 0}}});
  hs_database_t* database = nullptr;
  if (hs_deserialize_database(bytes.data(), bytes.size(), &database) != HS_SUCCESS) {
    screen->error_ = "the prebuilt literal screen does not load here";
    return screen;
  }
  screen->database_ = database;
  return screen;
}

namespace {

struct ScanContext {
  const std::vector<LiteralScreen::Anchor>& anchors;
  const std::vector<LiteralScreen::Literal>& literals;
  std::string_view block;
  std::vector<LiteralScreen::Hit>& hits;
};

bool holds_at(std::string_view block, size_t start, const LiteralScreen::Literal& literal) {
  if (start + literal.text.size() > block.size()) return false;
  const char* bytes = block.data() + start;
  if (!literal.caseless) return std::memcmp(bytes, literal.text.data(), literal.text.size()) == 0;
  for (size_t i = 0; i < literal.text.size(); ++i) {
    if (fold(bytes[i]) != fold(literal.text[i])) return false;
  }
  return true;
}

// Each literal the anchor stands for, where the anchor would sit inside it.
int on_anchor(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* context_ptr) {
  auto& context = *static_cast<ScanContext*>(context_ptr);
  const auto& anchor = context.anchors[id];
  size_t anchor_start = static_cast<size_t>(to) - anchor.text.size();
  for (const auto& member : anchor.members) {
    if (member.offset > anchor_start) continue;
    size_t start = anchor_start - member.offset;
    const auto& literal = context.literals[member.literal];
    bool same = member.offset == 0 && literal.text.size() == anchor.text.size() &&
                literal.caseless == anchor.caseless;
    if (same || holds_at(context.block, start, literal)) {
      context.hits.push_back({static_cast<uint32_t>(start + literal.text.size()), member.literal});
    }
  }
  return 0;
}

// This thread's Hyperscan working memory, grown to serve each database it scans with: a thread
// goes back and forth between screens (the prebuilt one for events, the sampled one for blocks).
hs_scratch_t* thread_scratch(const hs_database_t* database, uint64_t screen_id) {
  struct Scratch {
    hs_scratch_t* memory = nullptr;
    std::vector<uint64_t> serves;  // the ids of the screens it is large enough for
    ~Scratch() { hs_free_scratch(memory); }
  };
  thread_local Scratch scratch;
  if (std::find(scratch.serves.begin(), scratch.serves.end(), screen_id) != scratch.serves.end())
    return scratch.memory;
  if (hs_alloc_scratch(database, &scratch.memory) != HS_SUCCESS) return nullptr;
  if (scratch.serves.size() == 64) scratch.serves.clear();  // screens come and go in tests
  scratch.serves.push_back(screen_id);
  return scratch.memory;
}

}  // namespace

bool LiteralScreen::scan(std::string_view block, std::vector<Hit>& hits) const {
  hits.clear();
  if (!database_ || block.size() >= (uint64_t{1} << 32)) return false;
  auto* database = static_cast<const hs_database_t*>(database_);
  hs_scratch_t* scratch = thread_scratch(database, id_);
  if (!scratch) return false;
  ScanContext context{anchors_, literals_, block, hits};
  return hs_scan(database, block.data(), static_cast<unsigned>(block.size()), 0, scratch, on_anchor,
                 &context) == HS_SUCCESS;
}

#else

LiteralScreen::LiteralScreen(const std::vector<Literal>& literals, std::string_view)
    : literals_(literals), error_("built without Hyperscan") {}
LiteralScreen::~LiteralScreen() = default;
bool LiteralScreen::scan(std::string_view, std::vector<Hit>& hits) const {
  hits.clear();
  return false;
}
std::string LiteralScreen::serialize() const {
  return {};
}
std::unique_ptr<LiteralScreen> LiteralScreen::deserialize(const std::vector<Literal>& literals,
                                                          std::string_view) {
  std::unique_ptr<LiteralScreen> screen(new LiteralScreen());
  screen->literals_ = literals;
  screen->error_ = "built without Hyperscan";
  return screen;
}

#endif

bool LiteralScreen::built_in() {
#ifdef FAULTLINE_HAVE_HYPERSCAN
  return true;
#else
  return false;
#endif
}

}  // namespace faultline::screen
