#include "ingest/stream_decoder.hpp"

#include <bzlib.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace faultline::ingest {
namespace {

// One decompressor's step over the input it is given: how much it took and gave, and whether
// its stream ended or is damaged (`error` says how, in the library's words).
struct Step {
  enum class State { kMore, kEnd, kError };
  size_t consumed = 0;
  size_t produced = 0;
  State state = State::kMore;
  std::string error;
};

class Codec {
 public:
  virtual ~Codec() = default;
  // `input_ended`: no byte follows `input`.
  virtual Step run(std::string_view input, std::span<char> output, bool input_ended) = 0;
  // Ready for the next stream of a concatenation.
  virtual void restart() = 0;
  // The first bytes of a next stream; empty when the library reads concatenations itself.
  virtual std::string_view magic() const = 0;
};

class GzipCodec final : public Codec {
 public:
  GzipCodec() { ::inflateInit2(&stream_, 15 + 16); }
  ~GzipCodec() override { ::inflateEnd(&stream_); }
  GzipCodec(const GzipCodec&) = delete;
  GzipCodec& operator=(const GzipCodec&) = delete;

  Step run(std::string_view input, std::span<char> output, bool) override {
    stream_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(input.data()));
    stream_.avail_in = static_cast<uInt>(std::min<size_t>(input.size(), UINT32_MAX));
    stream_.next_out = reinterpret_cast<Bytef*>(output.data());
    stream_.avail_out = static_cast<uInt>(std::min<size_t>(output.size(), UINT32_MAX));
    int code = ::inflate(&stream_, Z_NO_FLUSH);
    Step step;
    step.consumed = static_cast<size_t>(stream_.next_in - reinterpret_cast<const Bytef*>(input.data()));
    step.produced = static_cast<size_t>(stream_.next_out - reinterpret_cast<Bytef*>(output.data()));
    if (code == Z_STREAM_END) {
      step.state = Step::State::kEnd;
    } else if (code != Z_OK && code != Z_BUF_ERROR) {
      step.state = Step::State::kError;
      step.error = stream_.msg ? stream_.msg : code == Z_MEM_ERROR ? "out of memory" : "corrupt data";
    }
    return step;
  }
  void restart() override { ::inflateReset(&stream_); }
  std::string_view magic() const override { return "\x1f\x8b"; }

 private:
  z_stream stream_{};
};

// libzstd gives nothing of a call that fails (a block's or the frame's checksum wrong): its
// output and input positions stay where they were. So each call gets no more input than the
// next piece the frame needs (one block, or the checksum), and pending output is flushed in a
// call of its own first: a failure then costs the damaged block alone.
class ZstdCodec final : public Codec {
 public:
  ZstdCodec() : context_(ZSTD_createDCtx()) {}
  ~ZstdCodec() override { ZSTD_freeDCtx(context_); }
  ZstdCodec(const ZstdCodec&) = delete;
  ZstdCodec& operator=(const ZstdCodec&) = delete;

  Step run(std::string_view input, std::span<char> output, bool) override {
    if (!context_) return {0, 0, Step::State::kError, "the decoder could not start (out of memory)"};
    ZSTD_outBuffer out{output.data(), output.size(), 0};
    if (pending_output_) {
      ZSTD_inBuffer none{nullptr, 0, 0};
      size_t code = ZSTD_decompressStream(context_, &out, &none);
      if (!ZSTD_isError(code)) next_piece_ = code;
      pending_output_ = out.pos == out.size;
      if (out.pos > 0 || ZSTD_isError(code)) return step_of(code, 0, out.pos);
    }
    ZSTD_inBuffer in{input.data(), std::min(input.size(), std::max<size_t>(next_piece_, 1)), 0};
    size_t code = ZSTD_decompressStream(context_, &out, &in);
    if (!ZSTD_isError(code)) next_piece_ = code;
    pending_output_ = out.pos == out.size;
    return step_of(code, in.pos, out.pos);
  }
  void restart() override {}
  // The context starts the next frame (or skippable frame) by itself, and refuses what is not one.
  std::string_view magic() const override { return {}; }

 private:
  static Step step_of(size_t code, size_t consumed, size_t produced) {
    Step step{consumed, produced, Step::State::kMore, {}};
    if (ZSTD_isError(code)) {
      step.state = Step::State::kError;
      step.error = ZSTD_getErrorName(code);
    } else if (code == 0) {
      step.state = Step::State::kEnd;  // a frame ended and all of it was given
    }
    return step;
  }

  ZSTD_DCtx* context_;
  size_t next_piece_ = 1;  // the input the frame needs next, as the last call hinted
  bool pending_output_ = false;
};

class XzCodec final : public Codec {
 public:
  XzCodec() { start(); }
  ~XzCodec() override { ::lzma_end(&stream_); }
  XzCodec(const XzCodec&) = delete;
  XzCodec& operator=(const XzCodec&) = delete;

  Step run(std::string_view input, std::span<char> output, bool input_ended) override {
    if (started_ != LZMA_OK)
      return {0, 0, Step::State::kError, "the decoder could not start (out of memory)"};
    stream_.next_in = reinterpret_cast<const uint8_t*>(input.data());
    stream_.avail_in = input.size();
    stream_.next_out = reinterpret_cast<uint8_t*>(output.data());
    stream_.avail_out = output.size();
    lzma_ret code = ::lzma_code(&stream_, input_ended ? LZMA_FINISH : LZMA_RUN);
    Step step;
    step.consumed = input.size() - stream_.avail_in;
    step.produced = output.size() - stream_.avail_out;
    if (code == LZMA_STREAM_END) {
      step.state = Step::State::kEnd;
    } else if (code == LZMA_BUF_ERROR && input_ended) {
      step.state = Step::State::kMore;  // no progress at the end: truncated, the caller says so
    } else if (code != LZMA_OK && code != LZMA_BUF_ERROR) {
      step.state = Step::State::kError;
      step.error = code == LZMA_DATA_ERROR          ? "corrupt data"
                   : code == LZMA_FORMAT_ERROR      ? "not an xz stream"
                   : code == LZMA_OPTIONS_ERROR     ? "unsupported options"
                   : code == LZMA_MEM_ERROR         ? "out of memory"
                   : code == LZMA_MEMLIMIT_ERROR    ? "needs more memory than the 1 GiB limit"
                   : code == LZMA_UNSUPPORTED_CHECK ? "unsupported integrity check"
                                                    : "decoding failed";
    }
    return step;
  }
  void restart() override {}
  // LZMA_CONCATENATED reads every stream of the file, and the padding between them.
  std::string_view magic() const override { return {}; }

 private:
  void start() { started_ = ::lzma_stream_decoder(&stream_, uint64_t{1} << 30, LZMA_CONCATENATED); }
  lzma_stream stream_ = LZMA_STREAM_INIT;
  lzma_ret started_ = LZMA_OK;
};

class Bzip2Codec final : public Codec {
 public:
  Bzip2Codec() { ::BZ2_bzDecompressInit(&stream_, 0, 0); }
  ~Bzip2Codec() override { ::BZ2_bzDecompressEnd(&stream_); }
  Bzip2Codec(const Bzip2Codec&) = delete;
  Bzip2Codec& operator=(const Bzip2Codec&) = delete;

  Step run(std::string_view input, std::span<char> output, bool) override {
    stream_.next_in = const_cast<char*>(input.data());
    stream_.avail_in = static_cast<unsigned>(std::min<size_t>(input.size(), UINT32_MAX));
    stream_.next_out = output.data();
    stream_.avail_out = static_cast<unsigned>(std::min<size_t>(output.size(), UINT32_MAX));
    int code = ::BZ2_bzDecompress(&stream_);
    Step step;
    step.consumed = static_cast<size_t>(stream_.next_in - input.data());
    step.produced = static_cast<size_t>(stream_.next_out - output.data());
    if (code == BZ_STREAM_END) {
      step.state = Step::State::kEnd;
    } else if (code != BZ_OK) {
      step.state = Step::State::kError;
      step.error = code == BZ_DATA_ERROR_MAGIC ? "not a bzip2 stream"
                   : code == BZ_MEM_ERROR      ? "out of memory"
                                               : "corrupt data (a block's checksum or structure is wrong)";
    }
    return step;
  }
  void restart() override {
    ::BZ2_bzDecompressEnd(&stream_);
    stream_ = {};
    ::BZ2_bzDecompressInit(&stream_, 0, 0);
  }
  std::string_view magic() const override { return "BZh"; }

 private:
  bz_stream stream_{};
};

std::unique_ptr<Codec> codec_for(std::string_view compression) {
  if (compression == "gzip") return std::make_unique<GzipCodec>();
  if (compression == "zstd") return std::make_unique<ZstdCodec>();
  if (compression == "xz") return std::make_unique<XzCodec>();
  return std::make_unique<Bzip2Codec>();
}

class DecodingSource final : public ByteSource {
 public:
  static constexpr size_t kInputBlock = size_t{1} << 16;

  DecodingSource(std::unique_ptr<ByteSource> raw, std::string_view compression)
      : raw_(std::move(raw)),
        compression_(compression),
        codec_(codec_for(compression)),
        block_(kInputBlock) {}

  Result<size_t> read(std::span<char> buffer) override {
    size_t produced = 0;
    while (produced == 0 && buffer.size() > 0 && error_.empty() && !finished_) {
      if (input_.empty() && !input_ended_ && !refill()) break;
      if (between_streams_) {
        if (!start_next_stream()) continue;
      }
      Step step = codec_->run(input_, buffer.subspan(produced), input_ended_ && input_.empty());
      input_.remove_prefix(step.consumed);
      offset_ += step.consumed;
      produced += step.produced;
      bool stuck = step.consumed == 0 && step.produced == 0;
      if (step.state == Step::State::kError) {
        fail("damaged at byte " + std::to_string(offset_) + ": " + step.error);
      } else if (step.state == Step::State::kEnd) {
        between_streams_ = !codec_->magic().empty() || !input_.empty() || !input_ended_;
        finished_ = !between_streams_;
      } else if (stuck && input_.empty() && input_ended_) {
        fail("truncated at byte " + std::to_string(offset_));
      } else if (stuck && !input_.empty() && stuck_before_) {
        fail("damaged at byte " + std::to_string(offset_) + ": the decoder takes no more input");
      }
      stuck_before_ = stuck && step.state == Step::State::kMore;
    }
    if (produced > 0 || error_.empty()) return produced;  // the bytes before damage come first
    return Status::error(error_);
  }

  std::string format() const override { return compression_; }
  std::optional<uint64_t> damage_offset() const override { return damage_offset_; }

 private:
  bool refill() {
    auto n = raw_->read(block_);
    if (!n) {
      error_ = n.status().message();
      damage_offset_ = raw_->damage_offset();
      return false;
    }
    input_ = std::string_view(block_.data(), *n);
    input_ended_ = *n == 0;
    return true;
  }

  // After a stream's end: NUL padding is passed over, another stream of the same kind starts
  // (the codec restarted), and anything else is reported. False when it needs more input.
  bool start_next_stream() {
    while (!input_.empty() && input_.front() == '\0') {
      input_.remove_prefix(1);
      ++offset_;
    }
    if (input_.empty()) {
      finished_ = input_ended_;
      return false;
    }
    std::string_view magic = codec_->magic();
    if (!magic.empty()) {
      if (input_.size() < magic.size() && !input_ended_) {
        // A stream's first bytes split over two blocks: keep them and read on.
        std::string head(input_);
        auto n = raw_->read(std::span<char>(block_.data() + head.size(), block_.size() - head.size()));
        std::memcpy(block_.data(), head.data(), head.size());
        if (!n) {
          error_ = n.status().message();
          return false;
        }
        input_ = std::string_view(block_.data(), head.size() + *n);
        input_ended_ = *n == 0;
        return false;
      }
      if (!input_.starts_with(magic)) {
        fail("damaged at byte " + std::to_string(offset_) + ": what follows the end of a stream is not " +
             compression_ + ", not read");
        return false;
      }
      codec_->restart();
    }
    between_streams_ = false;
    return true;
  }

  void fail(std::string what) {
    error_ = compression_ + " stream " + std::move(what);
    damage_offset_ = offset_;
  }

  std::unique_ptr<ByteSource> raw_;
  std::string compression_;
  std::unique_ptr<Codec> codec_;
  std::vector<char> block_;
  std::string_view input_;  // what the codec has not taken of block_
  bool input_ended_ = false;
  bool between_streams_ = false;
  bool finished_ = false;
  bool stuck_before_ = false;  // the last step took and gave nothing
  uint64_t offset_ = 0;        // compressed bytes taken by the codec
  std::string error_;
  std::optional<uint64_t> damage_offset_;
};

}  // namespace

std::unique_ptr<ByteSource> decoding_source(std::unique_ptr<ByteSource> raw, std::string_view compression) {
  return std::make_unique<DecodingSource>(std::move(raw), compression);
}

}  // namespace faultline::ingest
