// A YAML (and JSON) document as a flat, read-only tree, built from libyaml's event parser
// (issue 26). yaml-cpp's node tree (a shared_ptr and a std::map lookup per node) was 53% of a
// no-op apply of a 10,000-device document; this one is three vectors: the nodes, their children
// as index ranges, and every scalar's bytes in one string.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fastlink::yaml {

/// A syntax error of the text: yaml-cpp's wording where the catalogue names one ("end of sequence
/// flow not found"), libyaml's otherwise; line and column count from 1.
struct SyntaxError {
  std::string message;
};

class Tree;

/// A node of a Tree, or an undefined one (a key the mapping does not have).
class Node {
 public:
  Node() = default;
  bool isDefined() const { return tree_ != nullptr; }
  bool isMap() const;
  bool isSequence() const;
  bool isScalar() const;
  /// An undefined node, or a plain `~`, `null`, `Null`, `NULL` or empty scalar (as yaml-cpp has it).
  bool isNull() const;
  /// A scalar's text (empty for other nodes).
  std::string_view scalar() const;
  /// Children of a sequence; entries of a mapping (key, value: see key() and value()).
  std::size_t size() const;
  Node operator[](std::size_t i) const;
  /// Entry i of a mapping.
  Node key(std::size_t i) const;
  Node value(std::size_t i) const;
  /// The first entry of a mapping whose key is `k`: its index, or npos.
  std::size_t find(std::string_view k) const;
  /// The line of the node's first character, from 1.
  uint32_t line() const;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  friend class Tree;
  Node(const Tree* tree, uint32_t index) : tree_(tree), index_(index) {}
  const Tree* tree_ = nullptr;
  uint32_t index_ = 0;
};

class Tree {
 public:
  /// Reads the first document of `text` (like yaml-cpp's Load); throws SyntaxError.
  explicit Tree(std::string_view text);
  /// The document's root; undefined when the text holds no document.
  Node root() const { return hasRoot_ ? Node(this, root_) : Node(); }

 private:
  friend class Node;
  enum class Kind : uint8_t { Scalar, Null, Sequence, Mapping };
  struct Entry {
    Kind kind;
    uint32_t line;
    uint32_t begin;  // scalar: offset in text_; container: offset in children_
    uint32_t size;   // scalar: bytes; sequence: children; mapping: 2 x entries
  };
  std::vector<Entry> nodes_;
  std::vector<uint32_t> children_;
  std::string text_;
  uint32_t root_ = 0;
  bool hasRoot_ = false;
};

}  // namespace fastlink::yaml
