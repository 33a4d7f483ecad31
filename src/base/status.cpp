#include "base/status.hpp"

namespace faultline {

const std::string& Status::message() const {
  static const std::string kEmpty;
  return message_ ? *message_ : kEmpty;
}

}  // namespace faultline
