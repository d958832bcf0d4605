// The analyzer of full-text search: RediSearch's tokeniser (its separator table, backslash
// escapes, dropped control characters), Unicode case folding (ICU's full folding), stop words and Snowball stemming (Debian's libstemmer, one stemmer per
// thread and language).
#include <libstemmer.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/utf16.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "common/utf8.h"
#include "search/text_index.h"

namespace hotkv::search {

namespace {

// RediSearch's separators (toksep.h): ASCII punctuation and blanks. A separator preceded
// by a backslash is part of the token. Newlines are not separators: control characters
// are dropped from inside tokens instead (RediSearch's normaliser does that).
constexpr bool IsSeparator(unsigned char c) {
  switch (c) {
    case ' ': case '\t': case ',': case '.': case '/': case '(': case ')': case '{':
    case '}': case '[': case ']': case ':': case ';': case '~': case '!': case '@':
    case '#': case '$': case '%': case '^': case '&': case '*': case '-': case '=':
    case '+': case '|': case '\'': case '`': case '"': case '<': case '>': case '?':
      return true;
    default:
      return false;
  }
}

// Decodes one UTF-8 code point at s[i]; invalid bytes come back as themselves (len 1,
// cp -1) so that they are copied through unchanged.
int32_t DecodeUtf8(std::string_view s, size_t i, size_t* len) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *len = 1;
    return b0;
  }
  size_t n = 0;
  int32_t cp = 0;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2;
    cp = b0 & 0x1F;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3;
    cp = b0 & 0x0F;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4;
    cp = b0 & 0x07;
  } else {
    *len = 1;
    return -1;
  }
  if (i + n > s.size()) {
    *len = 1;
    return -1;
  }
  for (size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) {
      *len = 1;
      return -1;
    }
    cp = (cp << 6) | (b & 0x3F);
  }
  *len = n;
  return cp;
}

void FoldInto(std::string_view word, std::string* out) {
  out->reserve(out->size() + word.size());
  for (size_t i = 0; i < word.size();) {
    const auto c = static_cast<unsigned char>(word[i]);
    if (c < 0x80) {
      out->push_back(static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c));
      ++i;
      continue;
    }
    size_t len = 0;
    const int32_t cp = DecodeUtf8(word, i, &len);
    i += len;
    if (cp < 0) {
      out->push_back(word[i - len]);
      continue;
    }
    // Full case folding of one code point (context free, so per code point is exact):
    // "İ" -> "i̇", "ß" -> "ss", final "ς" -> "σ".
    UChar src[2];
    int32_t n = 0;
    U16_APPEND_UNSAFE(src, n, cp);
    UChar dst[8];
    UErrorCode err = U_ZERO_ERROR;
    const int32_t m = u_strFoldCase(dst, 8, src, n, U_FOLD_CASE_DEFAULT, &err);
    if (U_FAILURE(err) || m > 8) {
      AppendUtf8(static_cast<uint32_t>(cp), out);
      continue;
    }
    for (int32_t k = 0; k < m;) {
      UChar32 c;
      U16_NEXT_UNSAFE(dst, k, c);
      AppendUtf8(static_cast<uint32_t>(c), out);
    }
  }
}

// One libstemmer stemmer per thread and language (sb_stemmer is not thread safe).
class ThreadStemmers {
 public:
  ~ThreadStemmers() {
    for (auto& [name, stemmer] : stemmers_) {
      if (stemmer != nullptr) sb_stemmer_delete(stemmer);
    }
  }
  sb_stemmer* Get(const std::string& language) {
    auto it = stemmers_.find(language);
    if (it == stemmers_.end()) {
      it = stemmers_.emplace(language, sb_stemmer_new(language.c_str(), "UTF_8")).first;
    }
    return it->second;
  }

 private:
  std::unordered_map<std::string, sb_stemmer*> stemmers_;
};

sb_stemmer* StemmerFor(const std::string& language) {
  thread_local ThreadStemmers stemmers;
  return stemmers.Get(language);
}

// Languages RediSearch accepts that have no Snowball stemmer (or a different name).
std::string StemmerName(std::string language) {
  std::transform(language.begin(), language.end(), language.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (language == "chinese") return "";
  return language;
}

}  // namespace

const std::vector<std::string>& DefaultStopWords() {
  static const std::vector<std::string> kWords = {
      "a",    "is",    "the",   "an",   "and",  "are", "as",   "at",   "be",
      "but",  "by",    "for",   "if",   "in",   "into", "it",  "no",   "not",
      "of",   "on",    "or",    "such", "that", "their", "then", "there", "these",
      "they", "this",  "to",    "was",  "will", "with"};
  return kWords;
}

struct Analyzer::Impl {
  std::string language;
  std::string stemmer_name;  // empty: no stemming
  std::unordered_set<std::string> stopwords;
};

Analyzer::Analyzer(std::string language, std::vector<std::string> stopwords)
    : impl_(std::make_unique<Impl>()) {
  impl_->language = std::move(language);
  impl_->stemmer_name = StemmerName(impl_->language);
  if (!impl_->stemmer_name.empty() && StemmerFor(impl_->stemmer_name) == nullptr) {
    impl_->stemmer_name.clear();
  }
  for (const auto& w : stopwords) impl_->stopwords.insert(Fold(w));
}

Analyzer::~Analyzer() = default;

const Analyzer* Analyzer::ForLanguage(std::string_view language) {
  std::string name(language);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  static std::mutex mu;
  static auto* cache = new std::unordered_map<std::string, std::unique_ptr<Analyzer>>();
  std::lock_guard lock(mu);
  std::unique_ptr<Analyzer>& a = (*cache)[name];
  if (a == nullptr) {
    a = std::make_unique<Analyzer>(name, std::vector<std::string>{});
  }
  return a.get();
}

const std::string& Analyzer::language() const { return impl_->language; }

std::string Analyzer::Fold(std::string_view word) const {
  std::string out;
  FoldInto(word, &out);
  return out;
}

bool Analyzer::IsStopWord(std::string_view folded) const {
  return !impl_->stopwords.empty() && impl_->stopwords.count(std::string(folded)) > 0;
}

bool Analyzer::HasStemmer() const { return !impl_->stemmer_name.empty(); }

std::string Analyzer::Stem(std::string_view folded) const {
  if (impl_->stemmer_name.empty() || folded.empty()) return std::string(folded);
  sb_stemmer* stemmer = StemmerFor(impl_->stemmer_name);
  if (stemmer == nullptr) return std::string(folded);
  const sb_symbol* stem = sb_stemmer_stem(stemmer, reinterpret_cast<const sb_symbol*>(folded.data()),
                                          static_cast<int>(folded.size()));
  if (stem == nullptr) return std::string(folded);
  return std::string(reinterpret_cast<const char*>(stem),
                     static_cast<size_t>(sb_stemmer_length(stemmer)));
}

std::string Analyzer::Normalize(std::string_view raw) const {
  // RediSearch's normaliser: an unescaped backslash is dropped (it escapes the next
  // byte), unescaped blanks and every control character are dropped; then case folding.
  std::string unescaped;
  unescaped.reserve(raw.size());
  bool escaped = false;
  for (const char ch : raw) {
    const auto c = static_cast<unsigned char>(ch);
    if (((c == ' ' || c == '\t') && !escaped) || c < 0x20 || c == 0x7f) {
      // dropped
    } else if (c == '\\' && !escaped) {
      escaped = true;
      continue;
    } else {
      unescaped.push_back(ch);
    }
    escaped = false;
  }
  return Fold(unescaped);
}

void Analyzer::Tokenize(std::string_view text, std::vector<Token>* out) const {
  uint32_t position = 0;
  size_t start = 0;
  const size_t n = text.size();
  for (size_t i = 0; i <= n; ++i) {
    const bool end = i == n;
    if (!end) {
      const auto c = static_cast<unsigned char>(text[i]);
      if (!IsSeparator(c) || (i > 0 && text[i - 1] == '\\')) continue;
    }
    if (i > start) {
      std::string word = Normalize(text.substr(start, i - start));
      if (!word.empty() && !IsStopWord(word)) {
        out->push_back(Token{std::move(word), ++position, static_cast<uint32_t>(start)});
      }
    }
    start = i + 1;
  }
}

}  // namespace hotkv::search
