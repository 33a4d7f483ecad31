#include "rules/literal_screen.hpp"

#ifdef FAULTLINE_HAVE_HYPERSCAN
#include <hs.h>
#endif

namespace faultline::rules {

#ifdef FAULTLINE_HAVE_HYPERSCAN

LiteralScreen::Scratch::~Scratch() { hs_free_scratch(static_cast<hs_scratch_t*>(scratch_)); }

LiteralScreen::LiteralScreen(const std::vector<Literal>& literals) {
  if (literals.empty()) {
    error_ = "no literals";
    return;
  }
  std::vector<const char*> texts;
  std::vector<size_t> lengths;
  std::vector<unsigned> flags;
  std::vector<unsigned> ids;
  for (size_t i = 0; i < literals.size(); ++i) {
    texts.push_back(literals[i].text.data());
    lengths.push_back(literals[i].text.size());
    flags.push_back(literals[i].caseless ? HS_FLAG_CASELESS : 0u);
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

LiteralScreen::~LiteralScreen() { hs_free_database(static_cast<hs_database_t*>(database_)); }

std::unique_ptr<LiteralScreen::Scratch> LiteralScreen::make_scratch() const {
  std::unique_ptr<Scratch> scratch(new Scratch());
  if (database_) {
    hs_scratch_t* allocated = nullptr;
    if (hs_alloc_scratch(static_cast<const hs_database_t*>(database_), &allocated) == HS_SUCCESS) {
      scratch->scratch_ = allocated;
    }
  }
  return scratch;
}

bool LiteralScreen::scan(std::string_view block, Scratch& scratch, std::vector<Hit>& hits) const {
  hits.clear();
  if (!database_ || !scratch.scratch_ || block.size() >= (uint64_t{1} << 32)) return false;
  auto on_match = [](unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* context) {
    static_cast<std::vector<Hit>*>(context)->push_back({static_cast<uint32_t>(to), id});
    return 0;
  };
  return hs_scan(static_cast<const hs_database_t*>(database_), block.data(), static_cast<unsigned>(block.size()), 0,
                 static_cast<hs_scratch_t*>(scratch.scratch_), on_match, &hits) == HS_SUCCESS;
}

#else

LiteralScreen::Scratch::~Scratch() = default;
LiteralScreen::LiteralScreen(const std::vector<Literal>&) : error_("built without Hyperscan") {}
LiteralScreen::~LiteralScreen() = default;
std::unique_ptr<LiteralScreen::Scratch> LiteralScreen::make_scratch() const {
  return std::unique_ptr<Scratch>(new Scratch());
}
bool LiteralScreen::scan(std::string_view, Scratch&, std::vector<Hit>& hits) const {
  hits.clear();
  return false;
}

#endif

}  // namespace faultline::rules
