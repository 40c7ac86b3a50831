// fastlink::Error — the one error type every operation reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>

namespace fastlink {

/// Error conditions that are fastlink's own (errno values use std::errc).
enum class Errc {
  dump_interrupted = 1,  ///< the kernel kept changing the table while it was dumped (retryable)
  truncated_reply,       ///< a reply did not fit the receive buffer
  receive_overflow,      ///< the socket's receive buffer overflowed; results were lost
  malformed_reply,       ///< the kernel sent something we could not decode
  not_sent,              ///< a batch stopped before this request was sent
};

const std::error_category& errorCategory() noexcept;
std::error_code make_error_code(Errc e) noexcept;

/// Everything known about a failure: the errno (as std::error_code), the kernel's
/// extended-ack message and offset, which operation failed and where in a batch.
///
/// `what()` is "<extack or errno text> (<operation>)", e.g. "Numerical result out of range (link
/// set dev v0)": ready for an application's log line, with no "Error: " of its own (the fastlink
/// command prints iproute2's "Error: " in front of it).
/// Test the cause with `err.code() == std::errc::no_such_device`.
class Error : public std::system_error {
 public:
  Error(std::error_code code, std::string operation, std::string extack = {},
        std::optional<uint32_t> extackOffset = std::nullopt);

  /// Bad input detected before anything was sent (errno EINVAL).
  static Error invalidArgument(std::string operation, std::string why);

  const std::string& operation() const noexcept { return operation_; }
  /// The kernel's extended-ack message, empty when the kernel gave none.
  const std::string& extack() const noexcept { return extack_; }
  /// Byte offset into the request of the attribute the kernel complained about.
  std::optional<uint32_t> extackOffset() const noexcept { return extackOffset_; }
  /// Position of the failed request in its batch (0-based), if it came from one.
  std::optional<std::size_t> batchIndex() const noexcept { return batchIndex_; }
  /// Line of the batch file (1-based), if the batch came from a file.
  std::optional<std::size_t> line() const noexcept { return line_; }
  const std::string& lineText() const noexcept { return lineText_; }

  /// The reason alone: the extack message if any, else the errno text.
  std::string reason() const;

  Error& setBatchIndex(std::size_t index);
  Error& setLine(std::size_t line, std::string text);

  const char* what() const noexcept override { return message_.c_str(); }

 private:
  void rebuildMessage();

  std::string operation_;
  std::string extack_;
  std::optional<uint32_t> extackOffset_;
  std::optional<std::size_t> batchIndex_;
  std::optional<std::size_t> line_;
  std::string lineText_;
  std::string message_;
};

}  // namespace fastlink

template <>
struct std::is_error_code_enum<fastlink::Errc> : std::true_type {};
