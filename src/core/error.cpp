#include "fastlink/error.hpp"

#include <cstring>

#include "fastlink/request.hpp"

namespace fastlink {
namespace {

class Category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "fastlink"; }
  std::string message(int value) const override {
    switch (static_cast<Errc>(value)) {
      case Errc::dump_interrupted: return "dump interrupted: the kernel's table kept changing";
      case Errc::truncated_reply: return "reply truncated: larger than the receive buffer";
      case Errc::receive_overflow: return "receive buffer overflowed: replies were lost";
      case Errc::malformed_reply: return "malformed reply from the kernel";
      case Errc::not_sent: return "not sent: the batch stopped at an earlier failure";
    }
    return "unknown fastlink error";
  }
};

}  // namespace

const std::error_category& errorCategory() noexcept {
  static const Category category;
  return category;
}

std::error_code make_error_code(Errc e) noexcept { return {static_cast<int>(e), errorCategory()}; }

Error::Error(std::error_code code, std::string operation, std::string extack, std::optional<uint32_t> extackOffset)
    : std::system_error(code),
      operation_(std::move(operation)),
      extack_(std::move(extack)),
      extackOffset_(extackOffset) {
  rebuildMessage();
}

Error Error::invalidArgument(std::string operation, std::string why) {
  return Error(std::make_error_code(std::errc::invalid_argument), std::move(operation), std::move(why));
}

std::string Error::reason() const { return extack_.empty() ? code().message() : extack_; }

Error& Error::setBatchIndex(std::size_t index) {
  batchIndex_ = index;
  rebuildMessage();
  return *this;
}

Error& Error::setLine(std::size_t line, std::string text) {
  line_ = line;
  lineText_ = std::move(text);
  rebuildMessage();
  return *this;
}

// The reason, then where it happened, so a user of a 10,000-line batch knows which line to fix.
// No "Error: " in front: an application's log line already says it is an error ("failed: Error:
// ..." doubled it up); the CLI adds iproute2's "Error: " when it prints (cli/kit/command.cpp).
void Error::rebuildMessage() {
  message_ = reason();
  if (line_) {
    message_ += " (line " + std::to_string(*line_) + ": " + lineText_ + ")";
  } else if (!operation_.empty()) {
    message_ += " (" + operation_;
    if (batchIndex_) message_ += ", request #" + std::to_string(*batchIndex_ + 1) + " of the batch";
    message_ += ")";
  }
}

const Error* BatchResult::firstError() const {
  for (const auto& r : results)
    if (r.status == RequestStatus::Failed && r.error) return &*r.error;
  return nullptr;
}

}  // namespace fastlink
