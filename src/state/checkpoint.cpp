// The journal of an apply (issue 26, step 4): what a rollback needs, on disk before the first
// change is sent. Files are replaced whole (temporary name, fsync, rename, fsync of the
// directory), so a crash or SIGKILL leaves the old version or the new one, never half of one.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <sstream>
#include <system_error>

#include "core/whole_file.hpp"
#include "fastlink/error.hpp"
#include "fastlink/state.hpp"

namespace fastlink {
namespace {

constexpr const char* kUndoFile = "undo.yaml";
constexpr const char* kRecordFile = "record";
constexpr const char* kLockFile = "lock";

Error systemError(const std::string& operation) { return Error(std::error_code(errno, std::generic_category()), operation); }

using core::Fd;

void makeDirectories(const std::string& path) { core::makeDirectories(path, "journal"); }

void syncDirectory(const std::string& directory) {
  Fd dir{::open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir.fd < 0 || ::fsync(dir.fd) != 0) throw systemError("journal: fsync " + directory);
}

void replaceFile(const std::string& directory, const char* name, const std::string& text) {
  core::replaceWholeFile(directory + "/" + name, text, "journal", core::Durability::Synced);
}

bool readFile(const std::string& path, std::string& text) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) {
    if (errno == ENOENT) return false;
    throw systemError("journal: open " + path);
  }
  char buffer[4096];
  for (;;) {
    ssize_t n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw systemError("journal: read " + path);
    if (n == 0) return true;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

constexpr const char* kStatuses[] = {"applying", "applied", "awaiting-commit"};  // Checkpoint::Status's order

/// An unknown word reads as applying: the journal of an apply that may not have finished.
Checkpoint::Status statusNamed(const std::string& word) {
  auto at = std::find(std::begin(kStatuses), std::end(kStatuses), word);
  return static_cast<Checkpoint::Status>(at == std::end(kStatuses) ? 0 : at - std::begin(kStatuses));
}

std::string recordText(const Checkpoint::Record& r) {
  std::string text = "id " + r.id + "\nstatus " + kStatuses[static_cast<std::size_t>(r.status)] + "\n";
  if (r.deadlineMs) text += "deadline-ms " + std::to_string(*r.deadlineMs) + "\n";
  return text + "document " + r.document + "\n";
}

Checkpoint::Record parseRecord(const std::string& text, const std::string& path) {
  Checkpoint::Record r;
  std::istringstream in(text);
  std::string line;
  bool sawId = false;
  while (std::getline(in, line)) {
    auto space = line.find(' ');
    std::string key = line.substr(0, space);
    std::string value = space == std::string::npos ? "" : line.substr(space + 1);
    if (key == "id") r.id = value, sawId = true;
    else if (key == "status") r.status = statusNamed(value);
    else if (key == "deadline-ms") r.deadlineMs = std::stoll(value);
    else if (key == "document") r.document = value;
  }
  if (!sawId) throw Error(std::make_error_code(std::errc::invalid_argument), "journal: " + path + " has no id");
  return r;
}

}  // namespace

Checkpoint::Lock::~Lock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

Checkpoint Checkpoint::forNamespace(const std::string& root, uint64_t netnsCookie) {
  return Checkpoint(root + "/netns-" + std::to_string(netnsCookie));
}

Checkpoint::Lock Checkpoint::lock(bool wait) const {
  makeDirectories(directory_);
  std::string path = directory_ + "/" + kLockFile;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) throw systemError("journal: open " + path);
  Lock lock(fd);
  int rc;
  do rc = ::flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB));
  while (rc != 0 && errno == EINTR);
  if (rc != 0 && errno == EWOULDBLOCK)
    throw Error(std::make_error_code(std::errc::operation_would_block), "journal",
                "another apply, commit or rollback runs in this namespace");
  if (rc != 0) throw systemError("journal: flock " + path);
  return lock;
}

std::optional<Checkpoint::Record> Checkpoint::record() const {
  std::string path = directory_ + "/" + kRecordFile;
  std::string text;
  if (!readFile(path, text)) return std::nullopt;
  return parseRecord(text, path);
}

State Checkpoint::undo() const { return State::load(directory_ + "/" + kUndoFile); }

void Checkpoint::begin(const State& undo, const Record& record) const {
  makeDirectories(directory_);
  // The old record goes first (without a record there is no journal), then the undo document,
  // then the new record: a record is never beside another apply's undo document.
  std::string stale = directory_ + "/" + kRecordFile;
  if (::unlink(stale.c_str()) != 0 && errno != ENOENT) throw systemError("journal: unlink " + stale);
  replaceFile(directory_, kUndoFile, undo.toYaml());
  replaceFile(directory_, kRecordFile, recordText(record));
}

void Checkpoint::update(const Record& record) const { replaceFile(directory_, kRecordFile, recordText(record)); }

void Checkpoint::remove() const {
  // The record first: without it there is no journal, whatever else is left.
  for (const char* name : {kRecordFile, kUndoFile}) {
    std::string path = directory_ + "/" + name;
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) throw systemError("journal: unlink " + path);
  }
  syncDirectory(directory_);
}

}  // namespace fastlink
