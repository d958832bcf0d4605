// ParseSyntax: a command's documented syntax string -> its COMMAND DOCS argument tree
// (the mini-language is described above SyntaxParser below). Split from command_table.cc,
// which holds the table itself.
#include <string>
#include <string_view>
#include <vector>

#include "common/string_util.h"
#include "server/command_table.h"

namespace hotkv {

namespace {

bool IsUpperWord(std::string_view w) {
  bool has_alpha = false;
  for (char c : w) {
    if (islower(static_cast<unsigned char>(c))) {
      return false;
    }
    if (isalpha(static_cast<unsigned char>(c))) {
      has_alpha = true;
    }
  }
  return has_alpha;
}

std::string InferType(std::string_view name) {
  static const char* kKeys[] = {"key", "destination", "source", "newkey", "dstkey", "srckey"};
  for (const char* k : kKeys) {
    if (name == k) {
      return "key";
    }
  }
  static const char* kInts[] = {"count", "seconds", "milliseconds", "offset", "numkeys",
                                "index", "start", "end", "stop", "db", "index1", "index2",
                                "limit", "cursor", "port", "rank", "len", "numerator",
                                "min-match-len", "maxlen", "number", "increment", "decrement",
                                "id", "timeout-ms", "numeric"};
  for (const char* k : kInts) {
    if (name == k) {
      return "integer";
    }
  }
  if (name.rfind("unix-time", 0) == 0) {
    return "unix-time";
  }
  if (name == "pattern") {
    return "pattern";
  }
  if (name == "timeout" || name == "score" || name == "weight" || name == "float") {
    return "double";
  }
  return "string";
}

// '' is the empty token (MIGRATE's empty-string, which Redis 8.8 reports as "").
bool IsQuoted(std::string_view w) { return w.size() >= 2 && w.front() == '\'' && w.back() == '\''; }

// True for a word that is a literal token: an upper-case word ("EX", "LIB-NAME") or a word
// in single quotes, spelled exactly as the client sends it ('lib-name').
bool IsTokenWord(std::string_view w) { return IsUpperWord(w) || IsQuoted(w); }

std::string TokenText(std::string_view w) {
  return std::string(IsQuoted(w) ? w.substr(1, w.size() - 2) : w);
}

// "condition:" right after '[' or '<' names the group (upper case too: a few Redis
// arguments are named in capitals, CLIENT TRACKING's "[BCAST: BCAST]").
bool IsGroupName(std::string_view w) {
  if (w.size() < 2 || w.back() != ':') {
    return false;
  }
  for (char c : w.substr(0, w.size() - 1)) {
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-') {
      return false;
    }
  }
  return true;
}

// "increment:double" -> name "increment", type "double". A suffix that is not an argument
// type stays part of the name ("ip:port"); without one the type is inferred from the name.
void SplitNameType(std::string_view w, DocArg* arg) {
  static const char* kTypes[] = {"key", "string", "integer", "double", "pattern", "unix-time"};
  size_t colon = w.rfind(':');
  if (colon != std::string_view::npos && colon > 0) {
    std::string_view type = w.substr(colon + 1);
    for (const char* t : kTypes) {
      if (type == t) {
        arg->name = std::string(w.substr(0, colon));
        arg->type = t;
        return;
      }
    }
  }
  arg->name = std::string(w);
  arg->type = InferType(w);
}

// The syntax mini-language (Redis's documented syntax plus a few annotations):
//   name              an argument; its type is guessed from the name (InferType)
//   name:type         an argument with an explicit type (key string integer double pattern
//                     unix-time), e.g. "increment:double"
//   TOKEN             a pure-token argument named "token"; a quoted word ('lib-name') is a
//                     token spelled exactly as written (lower case allowed)
//   TOKEN name        an argument introduced by a token, e.g. "EX seconds"
//   [ ... ]           optional; < ... > required grouping; items separated by '|' form a
//                     oneof ("choice"); several items form a block ("block")
//   x ...             the preceding item (argument or group) may repeat: multiple
//   x [x ...]         the same; "TOKEN x [TOKEN x ...]" also sets multiple_token
//                     as does "..." after a group that has a token ("[g: GET a b] ...")
//   [name: ...]       a group named "name" (letters, digits, '-'), e.g.
//   <name: ...>       "[condition: NX | XX]"; a group of one item just renames that item
//                     ("[change: CH]"). If a named group starts with a TOKEN and has more
//                     than one item, the token belongs to the group:
//                     "[limit: LIMIT offset count]" is a block with token LIMIT, and
//                     "[aggregate: AGGREGATE <SUM | MIN | MAX>]" a oneof with token AGGREGATE.
class SyntaxParser {
 public:
  explicit SyntaxParser(std::string_view s) {
    std::string cur;
    for (char c : s) {
      if (c == '[' || c == ']' || c == '|' || c == '<' || c == '>') {
        if (!cur.empty()) {
          tokens_.push_back(cur);
          cur.clear();
        }
        tokens_.push_back(std::string(1, c));
      } else if (isspace(static_cast<unsigned char>(c))) {
        if (!cur.empty()) {
          tokens_.push_back(cur);
          cur.clear();
        }
      } else {
        cur += c;
      }
    }
    if (!cur.empty()) {
      tokens_.push_back(cur);
    }
  }

  std::vector<DocArg> ParseAll() {
    return ParseSeq("");
  }

 private:
  // Parses items until `close` (or end). Alternatives separated by '|' become a oneof.
  std::vector<DocArg> ParseSeq(const std::string& close) {
    std::vector<std::vector<DocArg>> alternatives(1);
    while (pos_ < tokens_.size() && tokens_[pos_] != close) {
      const std::string& t = tokens_[pos_];
      if (t == "|") {
        pos_++;
        alternatives.emplace_back();
        continue;
      }
      auto& seq = alternatives.back();
      if (t == "...") {
        if (!seq.empty()) {
          seq.back().multiple = true;
          // A group with a token repeats with its token ("[get-block: GET a b] ...").
          const std::string& type = seq.back().type;
          if (!seq.back().token.empty() && (type == "block" || type == "oneof")) {
            seq.back().multiple_token = true;
          }
        }
        pos_++;
        continue;
      }
      if (t == "[" || t == "<") {
        std::string end = t == "[" ? "]" : ">";
        pos_++;
        std::string group_name;
        if (pos_ < tokens_.size() && IsGroupName(tokens_[pos_])) {
          group_name = tokens_[pos_].substr(0, tokens_[pos_].size() - 1);
          pos_++;
        }
        bool leading_token = pos_ < tokens_.size() && IsTokenWord(tokens_[pos_]);
        std::vector<DocArg> inner = ParseSeq(end);
        pos_++;  // closing bracket
        // "[key ...]" right after "key": one or more of the previous argument.
        if (t == "[" && group_name.empty() && inner.size() == 1 && inner[0].multiple &&
            !seq.empty() && seq.back().name == inner[0].name &&
            seq.back().token == inner[0].token) {
          seq.back().multiple = true;
          seq.back().multiple_token = !seq.back().token.empty();
          continue;
        }
        // "[limit: LIMIT offset count]": the leading token is the group's.
        std::string group_token;
        if (!group_name.empty() && leading_token && inner.size() >= 2) {
          group_token = inner[0].token;
          if (inner[0].type == "pure-token") {
            inner.erase(inner.begin());
          } else {
            inner[0].token.clear();
          }
        }
        DocArg arg;
        if (inner.size() == 1 && (group_token.empty() || inner[0].token.empty())) {
          arg = std::move(inner[0]);
        } else {
          arg.type = "block";
          arg.name = "block";
          arg.children = std::move(inner);
        }
        if (!group_token.empty()) {
          arg.token = group_token;
        }
        if (!group_name.empty()) {
          arg.name = group_name;
        }
        if (t == "[") {
          arg.optional = true;
        }
        seq.push_back(std::move(arg));
        continue;
      }
      if (IsTokenWord(t)) {
        DocArg arg;
        arg.token = TokenText(t);
        // A token followed by a lowercase word is an argument with a token.
        if (pos_ + 1 < tokens_.size() && !IsTokenWord(tokens_[pos_ + 1]) &&
            tokens_[pos_ + 1].size() > 0 && isalpha(static_cast<unsigned char>(tokens_[pos_ + 1][0]))) {
          SplitNameType(tokens_[pos_ + 1], &arg);
          pos_ += 2;
        } else {
          arg.name = ToLower(arg.token);
          arg.type = "pure-token";
          pos_++;
        }
        seq.push_back(std::move(arg));
        continue;
      }
      DocArg arg;
      SplitNameType(t, &arg);
      pos_++;
      seq.push_back(std::move(arg));
    }
    if (alternatives.size() == 1) {
      return std::move(alternatives[0]);
    }
    DocArg oneof;
    oneof.type = "oneof";
    oneof.name = "choice";
    for (auto& alt : alternatives) {
      if (alt.size() == 1) {
        oneof.children.push_back(std::move(alt[0]));
      } else {
        DocArg block;
        block.type = "block";
        block.name = "block";
        block.children = std::move(alt);
        oneof.children.push_back(std::move(block));
      }
    }
    std::vector<DocArg> out;
    out.push_back(std::move(oneof));
    return out;
  }

  std::vector<std::string> tokens_;
  size_t pos_ = 0;
};

}  // namespace

std::vector<DocArg> ParseSyntax(std::string_view syntax) {
  SyntaxParser p(syntax);
  return p.ParseAll();
}

}  // namespace hotkv
