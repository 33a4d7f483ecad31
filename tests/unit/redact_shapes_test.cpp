#include "report/redact_shapes.hpp"

#include <doctest/doctest.h>

#include <string>

using namespace faultline::report::redaction;

TEST_CASE("redact shapes: numbers and values masked already are left as they are") {
  CHECK(all_digits("2024"));
  CHECK(all_digits("10.0.3"));
  CHECK_FALSE(all_digits(""));
  CHECK_FALSE(all_digits("v10"));
  CHECK(is_redacted("REDACTED"));
  CHECK(is_redacted("IP-3"));
  CHECK(is_redacted("host-12"));
  CHECK_FALSE(is_redacted("hostname"));
}

TEST_CASE("redact shapes: a key looks random, a word, a path or a short hash does not") {
  CHECK(looks_random("Zq8Lm2Xw9Pb4Kd7Rt1Vn5Hs"));                     // 23 of mixed case and digits
  CHECK(looks_random(std::string(32, 'a') + "0"));                    // hex of 32 digits or more
  CHECK_FALSE(looks_random("checkpoint_step_4000"));                  // no upper case
  CHECK_FALSE(looks_random("deadbeef01"));                            // hex, but short
  std::string blob = "AbCdEfGh1234IjKlMnOp5678QrStUvWx90YzAbCdEfGh";  // 44 characters
  CHECK(looks_like_key(blob, false));
  CHECK_FALSE(looks_like_key("/home/data/Shards/Part0001/Train/File", false));
  CHECK_FALSE(looks_like_key("AbCdEf12GhIj", false));
  CHECK(looks_like_key("AbCdEf12GhIjKlMn", true));  // inside a private key block, shorter lines count
}

TEST_CASE("redact shapes: host names against file names and addresses") {
  CHECK(is_file_extension("log"));
  CHECK(is_file_extension("JSON"));
  CHECK_FALSE(is_file_extension("internal"));
  CHECK(is_fqdn("node7.cluster"));
  CHECK(is_fqdn("gpu-a.prod.example.com"));
  CHECK_FALSE(is_fqdn("example.com"));  // a public domain needs three labels
  CHECK_FALSE(is_fqdn("train_log.cluster"));
  CHECK(is_address_host("ip-10-0-3-17"));
  CHECK_FALSE(is_address_host("ip-10-0-3"));
  CHECK_FALSE(is_address_host("ip-node-a"));
}

TEST_CASE("redact shapes: an IPv6 address has at most one :: and groups of four hex digits") {
  CHECK(valid_ipv6("fe80::1"));
  CHECK(valid_ipv6("2001:db8:0:0:0:0:2:1"));
  CHECK_FALSE(valid_ipv6("12:30:45"));  // three groups and no :: is a time, not an address
  CHECK_FALSE(valid_ipv6("fe80::1::2"));
  CHECK_FALSE(valid_ipv6("2001:db8:12345::1"));
  CHECK_FALSE(valid_ipv6("::"));
}
