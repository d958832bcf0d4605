// FT.SEARCH's HIGHLIGHT and SUMMARIZE, as RediSearch 2.10 computes them.
//
//   HighlightSettings s;             // per field, merged from the command's options
//   s.highlight = true;              // wrap matches in s.open / s.close ("<b>", "</b>")
//   s.summarize = true;              // keep the best s.frags fragments with s.len
//                                    // words of context, joined by s.separator
//   std::optional<std::string> v = HighlightText(analyzer, stem, text, terms, s);
//   // nullopt: leave the field's value as it is
//
// Fragments (RediSearch's fragmenter): a match starts a fragment; a later match joins it
// when at most 8 token positions separate them. A fragment scores the IDF of each
// distinct term it holds; the `frags` best (ties: earlier first) are kept in document
// order, each with context of about (len - words already inside) / 2 words of ~6 bytes on
// each side, cut at separators (RediSearch's cut drops the first partial word before and
// the last word at the end of the text; kept as is). A field with no match is, when only
// summarized, cut to its first ~6 * len * frags bytes; when highlighted, left as is.
//
// Matches: every token of the field that is (or whose "+stem" is) one of `terms`: the
// document's matched dictionary terms (query_exec.h, SearchHit::terms).
//
// Thread safety: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "search/text_index.h"

namespace hotkv::search {

struct HighlightSettings {
  bool highlight = false;
  std::string open = "<b>";
  std::string close = "</b>";
  bool summarize = false;
  uint64_t frags = 3;
  uint64_t len = 20;
  std::string separator = "... ";
};

// `text_field`: the value is one of the index's TEXT fields (only those have matches);
// `stem`: that field is stemmed (not NOSTEM).
std::optional<std::string> HighlightText(const Analyzer& analyzer, bool text_field, bool stem,
                                         std::string_view text,
                                         const std::vector<MatchedTerm>& terms,
                                         const HighlightSettings& s);

}  // namespace hotkv::search
