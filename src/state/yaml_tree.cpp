// libyaml events -> a flat tree (see yaml_tree.hpp).
//
// Children are collected on one scratch stack: a container's children are pushed as they come
// (grandchildren above them) and moved, as one contiguous range, into children_ when the
// container ends. An alias is the index of its anchor's node: the tree is read-only, so shared.
#include "state/yaml_tree.hpp"

#include <yaml.h>

#include <map>
#include <memory>

namespace fastlink::yaml {

namespace {

std::string at(const yaml_mark_t& mark) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) + ": ";
}

/// libyaml's error in the words yaml-cpp used for the same input (the bad-input catalogue and
/// users' scripts know them) where one is known, else libyaml's own.
std::string syntaxMessage(const yaml_parser_t& parser) {
  std::string context = parser.context ? parser.context : "";
  std::string problem = parser.problem ? parser.problem : "syntax error";
  if (parser.error == YAML_READER_ERROR) return "byte " + std::to_string(parser.problem_offset) + ": " + problem;
  const char* known = nullptr;
  if (context == "while parsing a flow sequence") known = "end of sequence flow not found";
  else if (context == "while parsing a flow mapping") known = "end of map flow not found";
  else if (context == "while parsing a block mapping") known = "end of map not found";
  else if (context == "while parsing a block collection") known = "end of sequence not found";
  if (known) return at(parser.problem_mark) + known;
  return at(parser.problem_mark) + (context.empty() ? problem : context + ": " + problem);
}

bool plainNull(const yaml_event_t& e) {
  if (e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE) return false;
  std::string_view v(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

struct ParserDeleter {
  void operator()(yaml_parser_t* p) const {
    yaml_parser_delete(p);
    delete p;
  }
};
struct EventGuard {
  yaml_event_t event{};
  ~EventGuard() { yaml_event_delete(&event); }
};

}  // namespace

Tree::Tree(std::string_view input) {
  std::unique_ptr<yaml_parser_t, ParserDeleter> parser(new yaml_parser_t);
  if (!yaml_parser_initialize(parser.get())) {
    delete parser.release();
    throw SyntaxError{"cannot initialise the YAML parser"};
  }
  yaml_parser_set_input_string(parser.get(), reinterpret_cast<const unsigned char*>(input.data()), input.size());
  // Documents are mostly scalars; a node per ~9 bytes of text is what the 10,000-device one has.
  nodes_.reserve(input.size() / 8 + 16);
  children_.reserve(input.size() / 8 + 16);
  text_.reserve(input.size() / 2);

  struct Open {
    uint32_t node, firstChild;
  };
  std::vector<Open> open;
  std::vector<uint32_t> scratch;
  std::map<std::string, uint32_t, std::less<>> anchors;
  auto place = [&](uint32_t index) {
    if (open.empty()) {
      root_ = index;
      hasRoot_ = true;
    } else {
      scratch.push_back(index);
    }
  };
  auto add = [&](Kind kind, const yaml_event_t& e, uint32_t begin, uint32_t size) {
    nodes_.push_back(Entry{kind, static_cast<uint32_t>(e.start_mark.line + 1), begin, size});
    return static_cast<uint32_t>(nodes_.size() - 1);
  };
  auto anchor = [&](const yaml_char_t* name, uint32_t index) {
    if (name) anchors[reinterpret_cast<const char*>(name)] = index;
  };

  for (;;) {
    EventGuard g;
    if (!yaml_parser_parse(parser.get(), &g.event)) throw SyntaxError{syntaxMessage(*parser)};
    const yaml_event_t& e = g.event;
    switch (e.type) {
      case YAML_SCALAR_EVENT: {
        uint32_t index;
        if (plainNull(e)) {
          index = add(Kind::Null, e, 0, 0);
        } else {
          index = add(Kind::Scalar, e, static_cast<uint32_t>(text_.size()), static_cast<uint32_t>(e.data.scalar.length));
          text_.append(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
        }
        anchor(e.data.scalar.anchor, index);
        place(index);
        break;
      }
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        uint32_t index = add(e.type == YAML_SEQUENCE_START_EVENT ? Kind::Sequence : Kind::Mapping, e, 0, 0);
        anchor(e.type == YAML_SEQUENCE_START_EVENT ? e.data.sequence_start.anchor : e.data.mapping_start.anchor, index);
        place(index);
        open.push_back(Open{index, static_cast<uint32_t>(scratch.size())});
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT: {
        Open o = open.back();
        open.pop_back();
        nodes_[o.node].begin = static_cast<uint32_t>(children_.size());
        nodes_[o.node].size = static_cast<uint32_t>(scratch.size() - o.firstChild);
        children_.insert(children_.end(), scratch.begin() + o.firstChild, scratch.end());
        scratch.resize(o.firstChild);
        break;
      }
      case YAML_ALIAS_EVENT: {
        auto it = anchors.find(reinterpret_cast<const char*>(e.data.alias.anchor));
        if (it == anchors.end()) throw SyntaxError{at(e.start_mark) + "the referenced anchor is not defined"};
        place(it->second);
        break;
      }
      case YAML_DOCUMENT_END_EVENT:
      case YAML_STREAM_END_EVENT:
        return;  // the first document only, as yaml-cpp's Load
      default:
        break;
    }
  }
}

bool Node::isMap() const { return tree_ && tree_->nodes_[index_].kind == Tree::Kind::Mapping; }
bool Node::isSequence() const { return tree_ && tree_->nodes_[index_].kind == Tree::Kind::Sequence; }
bool Node::isScalar() const { return tree_ && tree_->nodes_[index_].kind == Tree::Kind::Scalar; }
bool Node::isNull() const { return !tree_ || tree_->nodes_[index_].kind == Tree::Kind::Null; }
uint32_t Node::line() const { return tree_ ? tree_->nodes_[index_].line : 0; }

std::string_view Node::scalar() const {
  if (!isScalar()) return {};
  const auto& n = tree_->nodes_[index_];
  return std::string_view(tree_->text_).substr(n.begin, n.size);
}

std::size_t Node::size() const {
  if (!tree_) return 0;
  const auto& n = tree_->nodes_[index_];
  if (n.kind == Tree::Kind::Sequence) return n.size;
  if (n.kind == Tree::Kind::Mapping) return n.size / 2;
  return 0;
}

Node Node::operator[](std::size_t i) const { return Node(tree_, tree_->children_[tree_->nodes_[index_].begin + i]); }
Node Node::key(std::size_t i) const { return Node(tree_, tree_->children_[tree_->nodes_[index_].begin + 2 * i]); }
Node Node::value(std::size_t i) const { return Node(tree_, tree_->children_[tree_->nodes_[index_].begin + 2 * i + 1]); }

std::size_t Node::find(std::string_view k) const {
  std::size_t n = size();
  for (std::size_t i = 0; i < n; ++i) {
    Node key = this->key(i);
    if (key.isScalar() && key.scalar() == k) return i;
  }
  return npos;
}

}  // namespace fastlink::yaml
