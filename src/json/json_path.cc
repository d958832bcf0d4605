// JSONPath evaluation over a json::Node tree, filters, and removal of matches.
#include "json/json_path.h"

#include <algorithm>

#include "json/json_filter.h"

namespace hotkv::json {

namespace {

void Push(Node& n, Node* parent, size_t index, int depth, std::vector<Match>* out) {
  out->push_back(Match{&n, parent, index, depth});
}

// Array index as Redis reads it: negative counts from the end; nullopt when outside.
bool NormalizeIndex(int64_t i, size_t size, size_t* out) {
  auto n = static_cast<int64_t>(size);
  if (i < 0) {
    i += n;
  }
  if (i < 0 || i >= n) {
    return false;
  }
  *out = static_cast<size_t>(i);
  return true;
}

void ApplyOne(const Selector& s, const Match& m, Node& root, std::vector<Match>* out) {
  Node& n = *m.node;
  int d = m.depth + 1;
  switch (s.type) {
    case Selector::Type::kKey:
    case Selector::Type::kKeys:
      if (n.is_object()) {
        auto& ms = n.members();
        for (const std::string& k : s.keys) {
          for (size_t i = 0; i < ms.size(); i++) {
            if (ms[i].key.str() == k) {
              Push(ms[i].value, &n, i, d, out);
              break;
            }
          }
        }
      }
      return;
    case Selector::Type::kIndex:
    case Selector::Type::kIndexes:
      if (n.is_array()) {
        for (int64_t i : s.indexes) {
          size_t at;
          if (NormalizeIndex(i, n.array().size(), &at)) {
            Push(n.array()[at], &n, at, d, out);
          }
        }
      }
      return;
    case Selector::Type::kSlice: {
      if (!n.is_array()) {
        return;
      }
      auto len = static_cast<int64_t>(n.array().size());
      auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
        if (v < 0) {
          v += len;
        }
        return std::clamp(v, lo, hi);
      };
      if (s.step > 0) {
        int64_t start = s.has_start ? clamp(s.start, 0, len) : 0;
        int64_t end = s.has_end ? clamp(s.end, 0, len) : len;
        for (int64_t i = start; i < end; i += s.step) {
          Push(n.array()[static_cast<size_t>(i)], &n, static_cast<size_t>(i), d, out);
        }
      } else {
        int64_t start = s.has_start ? clamp(s.start, -1, len - 1) : len - 1;
        int64_t end = s.has_end ? clamp(s.end, -1, len - 1) : -1;
        for (int64_t i = start; i > end; i += s.step) {
          Push(n.array()[static_cast<size_t>(i)], &n, static_cast<size_t>(i), d, out);
        }
      }
      return;
    }
    case Selector::Type::kWildcard:
    case Selector::Type::kFilter:
      if (n.is_array()) {
        auto& a = n.array();
        for (size_t i = 0; i < a.size(); i++) {
          if (s.type == Selector::Type::kWildcard || FilterMatches(*s.filter, a[i], root)) {
            Push(a[i], &n, i, d, out);
          }
        }
      } else if (n.is_object()) {
        auto& ms = n.members();
        for (size_t i = 0; i < ms.size(); i++) {
          if (s.type == Selector::Type::kWildcard || FilterMatches(*s.filter, ms[i].value, root)) {
            Push(ms[i].value, &n, i, d, out);
          }
        }
      }
      return;
  }
}

// "..sel": the selector applied to the node, then to every descendant, depth first.
void Descend(const Selector& s, const Match& m, Node& root, std::vector<Match>* out) {
  ApplyOne(s, m, root, out);
  Node& n = *m.node;
  if (n.is_array()) {
    auto& a = n.array();
    for (size_t i = 0; i < a.size(); i++) {
      Descend(s, Match{&a[i], &n, i, m.depth + 1}, root, out);
    }
  } else if (n.is_object()) {
    auto& ms = n.members();
    for (size_t i = 0; i < ms.size(); i++) {
      Descend(s, Match{&ms[i].value, &n, i, m.depth + 1}, root, out);
    }
  }
}

// The values an operand stands for at `candidate`.
void OperandValues(const FilterOperand& op, const Node& candidate, const Node& root,
                   std::vector<const Node*>* out) {
  if (op.kind == FilterOperand::Kind::kLiteral) {
    out->push_back(op.literal.get());
    return;
  }
  std::vector<Match> ms;
  Node& start = const_cast<Node&>(op.kind == FilterOperand::Kind::kRelative ? candidate : root);
  SelectFrom(op.selectors, start, const_cast<Node&>(root), &ms);
  for (const Match& m : ms) {
    out->push_back(m.node);
  }
}

bool RegexMatch(const std::regex& re, std::string_view s) {
  if (s.size() > kMaxRegexSubject) {
    return false;
  }
  try {
    return std::regex_search(s.begin(), s.end(), re);
  } catch (const std::regex_error&) {
    return false;
  }
}

bool Compare(FilterExpr::Cmp cmp, const Node& a, const Node& b, const FilterExpr& e) {
  using Cmp = FilterExpr::Cmp;
  if (cmp == Cmp::kRegex) {
    if (!a.is_string() || !b.is_string()) {
      return false;
    }
    if (e.regex != nullptr) {
      return RegexMatch(*e.regex, a.str());
    }
    std::shared_ptr<std::regex> re = CompileRegex(b.str());
    return re != nullptr && RegexMatch(*re, a.str());
  }
  int order;  // -1, 0, 1; 2 when only equality is defined
  if (a.is_number() && b.is_number()) {
    if (a.kind() == Kind::kInt && b.kind() == Kind::kInt) {
      order = a.int_value() < b.int_value() ? -1 : a.int_value() > b.int_value() ? 1 : 0;
    } else {
      double x = a.number(), y = b.number();
      order = x < y ? -1 : x > y ? 1 : 0;
    }
  } else if (a.is_string() && b.is_string()) {
    int c = a.str().compare(b.str());
    order = c < 0 ? -1 : c > 0 ? 1 : 0;
  } else if ((a.is_bool() && b.is_bool()) || (a.is_null() && b.is_null()) ||
             (a.is_container() && a.kind() == b.kind())) {
    order = Equal(a, b) ? 0 : 2;
  } else {
    return cmp == Cmp::kNe;
  }
  switch (cmp) {
    case Cmp::kEq:
      return order == 0;
    case Cmp::kNe:
      return order != 0;
    case Cmp::kLt:
      return order == -1;
    case Cmp::kLe:
      return order == -1 || order == 0;
    case Cmp::kGt:
      return order == 1;
    case Cmp::kGe:
      return order == 1 || order == 0;
    default:
      return false;
  }
}

}  // namespace

std::shared_ptr<std::regex> CompileRegex(std::string_view pattern) {
  auto flags = std::regex::ECMAScript;
  if (pattern.substr(0, 4) == "(?i)") {
    pattern.remove_prefix(4);
    flags |= std::regex::icase;
  }
  if (pattern.size() > kMaxRegexLength) {
    return nullptr;
  }
  try {
    return std::make_shared<std::regex>(std::string(pattern), flags);
  } catch (const std::regex_error&) {
    return nullptr;
  }
}

void SelectFrom(const std::vector<Selector>& selectors, Node& start, Node& root,
                std::vector<Match>* out) {
  std::vector<Match> frontier{Match{&start, nullptr, 0, 0}};
  std::vector<Match> next;
  for (const Selector& s : selectors) {
    next.clear();
    for (const Match& m : frontier) {
      if (s.descend) {
        Descend(s, m, root, &next);
      } else {
        ApplyOne(s, m, root, &next);
      }
    }
    frontier.swap(next);
    if (frontier.empty()) {
      return;
    }
  }
  out->insert(out->end(), frontier.begin(), frontier.end());
}

bool FilterMatches(const FilterExpr& e, const Node& candidate, const Node& root) {
  switch (e.op) {
    case FilterExpr::Op::kOr:
      return FilterMatches(*e.left, candidate, root) || FilterMatches(*e.right, candidate, root);
    case FilterExpr::Op::kAnd:
      return FilterMatches(*e.left, candidate, root) && FilterMatches(*e.right, candidate, root);
    case FilterExpr::Op::kNot:
      return !FilterMatches(*e.left, candidate, root);
    case FilterExpr::Op::kExists: {
      std::vector<const Node*> v;
      OperandValues(e.a, candidate, root, &v);
      return !v.empty();
    }
    case FilterExpr::Op::kCompare: {
      std::vector<const Node*> left, right;
      OperandValues(e.a, candidate, root, &left);
      OperandValues(e.b, candidate, root, &right);
      for (const Node* x : left) {
        for (const Node* y : right) {
          if (Compare(e.cmp, *x, *y, e)) {
            return true;
          }
        }
      }
      return false;
    }
  }
  return false;
}

std::vector<Match> Select(const Path& path, Node& root) {
  std::vector<Match> out;
  SelectFrom(path.selectors(), root, root, &out);
  return out;
}

size_t RemoveMatches(std::vector<Match> matches) {
  // Deepest first, so removing a node never frees a parent still to be visited; within
  // one parent, higher indexes first, so the lower ones stay valid.
  std::sort(matches.begin(), matches.end(), [](const Match& a, const Match& b) {
    if (a.depth != b.depth) {
      return a.depth > b.depth;
    }
    if (a.parent != b.parent) {
      return a.parent < b.parent;
    }
    return a.index > b.index;
  });
  size_t removed = 0;
  for (size_t i = 0; i < matches.size(); i++) {
    const Match& m = matches[i];
    if (m.parent == nullptr) {
      continue;
    }
    if (i > 0 && matches[i - 1].parent == m.parent && matches[i - 1].index == m.index) {
      continue;
    }
    if (m.parent->is_array()) {
      auto& a = m.parent->array();
      a.erase(a.begin() + static_cast<ptrdiff_t>(m.index));
    } else {
      auto& ms = m.parent->members();
      ms.erase(ms.begin() + static_cast<ptrdiff_t>(m.index));
    }
    removed++;
  }
  return removed;
}

}  // namespace hotkv::json
