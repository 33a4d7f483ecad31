// The shapes the redactor (report/redact.hpp) tells apart before it masks a word: a key rather
// than a word or a hash, a host name rather than a file name, an IPv6 address rather than a
// time, an address-bearing host name, a value already masked. Pure functions of the text.
#pragma once

#include <string_view>

namespace faultline::report::redaction {

// Digits and dots only ("10.0", "2024"): a number, never a secret.
bool all_digits(std::string_view text);
// A value an earlier step has masked already (REDACTED, USER, IP-3, host-2...).
bool is_redacted(std::string_view value);
// A value that looks like a key rather than a word or a number: base64 with upper and lower
// case and digits, or hex of 32 digits or more.
bool looks_random(std::string_view value);
// A run of base64 that is a key rather than a word, a path or a hash; inside an unterminated
// private key block (`in_key`), the shorter lines of its body count too.
bool looks_like_key(std::string_view value, bool in_key);
// The last label of a dotted word that makes it a file name rather than a host's domain.
bool is_file_extension(std::string_view label);
// A well-formed IPv6 address: at most one "::", groups of at most four hex digits.
bool valid_ipv6(std::string_view address);
// A fully qualified host name: a public top-level domain after three labels or more, or a site
// one (local, internal, cluster...) after two.
bool is_fqdn(std::string_view name);
// An AWS-style host name that carries its address: ip-10-0-0-1.
bool is_address_host(std::string_view name);

}  // namespace faultline::report::redaction
