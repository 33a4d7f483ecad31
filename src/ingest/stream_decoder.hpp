// Decoding one compressed stream (gzip, zstd, xz, bzip2) straight with its own library (zlib,
// libzstd, liblzma, libbz2), so that damage costs only what lies after it: every byte decoded
// before a truncation, a bad checksum or corrupt data is handed on, and only the read after
// them fails, naming the byte of the compressed stream where the damage was found. (libarchive's
// filters drop the block they were decoding along with the error, which for a small log is all
// of it.) Concatenated streams (`cat a.gz b.gz`, pbzip2's many streams, zstd frames) are read as
// one. byte_source.hpp's decode() is the entry; archive_reader.cpp decodes compressed archives
// through it before libarchive reads their members.
#pragma once

#include <memory>
#include <string_view>

#include "ingest/byte_source.hpp"

namespace faultline::ingest {

// A source that decodes `raw`, whose first bytes are a `compression` stream ("gzip", "zstd",
// "xz", "bzip2", as compression_of names them). format() is `compression`; damage_offset() is
// set once a read has failed on damage. Memory: one input block, one output block and the
// decoder's own state (a zstd window of up to 128 MiB, xz's dictionary), never the stream.
std::unique_ptr<ByteSource> decoding_source(std::unique_ptr<ByteSource> raw, std::string_view compression);

}  // namespace faultline::ingest
