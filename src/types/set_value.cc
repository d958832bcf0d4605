#include "types/set_value.h"

#include <malloc.h>

#include <algorithm>

#include "types/element.h"
#include "types/sampling.h"

namespace hotkv::types {
namespace {

size_t Digits(int64_t v) {
  char text[kMaxIntDigits];
  return FormatInt(v, text);
}

}  // namespace

SetValue SetValue::ForMembers(std::string_view first_member, size_t size_hint,
                              const EncodingLimits& limits) {
  if (ParseCanonicalInt(first_member) && size_hint <= limits.set_max_intset_entries) {
    return SetValue(Rep(IntSet()));
  }
  if (size_hint <= limits.set_max_listpack_entries) {
    return SetValue(Rep(PackedArray()));
  }
  return SetValue(Rep(std::make_unique<StringTable>(/*with_values=*/false, size_hint)));
}

SetValue SetValue::Clone() const {
  if (const auto* ints = std::get_if<IntSet>(&rep_)) {
    return SetValue(Rep(ints->Clone()));
  }
  if (const auto* packed = std::get_if<PackedArray>(&rep_)) {
    return SetValue(Rep(packed->Clone()));
  }
  return SetValue(Rep(std::make_unique<StringTable>(std::get<2>(rep_)->Clone())));
}

size_t SetValue::size() const {
  if (const auto* ints = std::get_if<IntSet>(&rep_)) {
    return ints->size();
  }
  if (const auto* packed = std::get_if<PackedArray>(&rep_)) {
    return packed->size();
  }
  return std::get<2>(rep_)->size();
}

const char* SetValue::EncodingName() const {
  switch (encoding()) {
    case Encoding::kIntset:
      return "intset";
    case Encoding::kListpack:
      return "listpack";
    case Encoding::kHashtable:
      return "hashtable";
  }
  return "unknown";
}

size_t SetValue::MemoryUsage() const {
  if (const auto* ints = std::get_if<IntSet>(&rep_)) {
    return ints->MemoryUsage();
  }
  if (const auto* packed = std::get_if<PackedArray>(&rep_)) {
    return packed->MemoryUsage();
  }
  const StringTable* table = std::get<2>(rep_).get();
  return malloc_usable_size(const_cast<StringTable*>(table)) + table->MemoryUsage();
}

bool SetValue::Contains(std::string_view member) const {
  if (const auto* ints = std::get_if<IntSet>(&rep_)) {
    const std::optional<int64_t> v = ParseCanonicalInt(member);
    return v && ints->Contains(*v);
  }
  if (const auto* packed = std::get_if<PackedArray>(&rep_)) {
    return packed->Find(Probe(member)) != packed->End();
  }
  return std::get<2>(rep_)->Contains(member);
}

bool SetValue::Add(std::string_view member, const EncodingLimits& limits) {
  if (auto* ints = std::get_if<IntSet>(&rep_)) {
    if (const std::optional<int64_t> v = ParseCanonicalInt(member)) {
      if (ints->empty() && limits.set_max_intset_entries == 0) {
        // A new set that may not be an intset at all starts as a listpack.
        ConvertToListpack();
        return Add(member, limits);
      }
      if (!ints->Insert(*v)) {
        return false;
      }
      if (ints->size() > limits.set_max_intset_entries) {
        ConvertToTable(ints->size());
      }
      return true;
    }
    // A non-integer member: a listpack if everything fits its limits, else a table.
    const size_t n = ints->size();
    const size_t longest_int = n == 0 ? 0 : std::max(Digits(ints->Min()), Digits(ints->Max()));
    if (n < limits.set_max_listpack_entries && member.size() <= limits.set_max_listpack_value &&
        longest_int <= limits.set_max_listpack_value) {
      ConvertToListpack();
      std::get<PackedArray>(rep_).PushBack(member);
    } else {
      ConvertToTable(n + 1);
      std::get<2>(rep_)->Insert(member);
    }
    return true;
  }
  if (auto* packed = std::get_if<PackedArray>(&rep_)) {
    if (packed->Find(Probe(member)) != packed->End()) {
      return false;
    }
    if (packed->size() < limits.set_max_listpack_entries &&
        member.size() <= limits.set_max_listpack_value) {
      packed->PushBack(member);
      return true;
    }
    ConvertToTable(packed->size() + 1);
  }
  return std::get<2>(rep_)->Insert(member);
}

bool SetValue::Remove(std::string_view member) {
  if (auto* ints = std::get_if<IntSet>(&rep_)) {
    const std::optional<int64_t> v = ParseCanonicalInt(member);
    return v && ints->Erase(*v);
  }
  if (auto* packed = std::get_if<PackedArray>(&rep_)) {
    const PackedArray::Pos p = packed->Find(Probe(member));
    if (p == packed->End()) {
      return false;
    }
    packed->Erase(p);
    return true;
  }
  return std::get<2>(rep_)->Erase(member);
}

void SetValue::ReserveFor(size_t new_members, const EncodingLimits& limits) {
  if ((encoding() == Encoding::kListpack && new_members > limits.set_max_listpack_entries) ||
      (encoding() == Encoding::kIntset && new_members > limits.set_max_intset_entries)) {
    ConvertToTable(size() + new_members);
  }
}

void SetValue::ConvertToTable(size_t expected) {
  auto table = std::make_unique<StringTable>(/*with_values=*/false, expected);
  ForEach([&](std::string_view member) {
    table->Insert(member);
    return true;
  });
  rep_ = std::move(table);
}

void SetValue::ConvertToListpack() {
  PackedArray packed;
  ForEach([&](std::string_view member) {
    packed.PushBack(member);
    return true;
  });
  rep_ = std::move(packed);
}

void SetValue::ForEach(FunctionRef<bool(std::string_view member)> visit) const {
  if (const auto* ints = std::get_if<IntSet>(&rep_)) {
    char text[kMaxIntDigits];
    for (size_t i = 0; i < ints->size(); ++i) {
      if (!visit(std::string_view(text, FormatInt(ints->At(i), text)))) {
        return;
      }
    }
    return;
  }
  if (const auto* packed = std::get_if<PackedArray>(&rep_)) {
    for (PackedArray::Pos p = packed->Begin(); p != packed->End(); p = packed->Next(p)) {
      if (!visit(packed->Get(p).view())) {
        return;
      }
    }
    return;
  }
  std::get<2>(rep_)->ForEach([&](std::string_view key, std::string_view) { return visit(key); });
}

uint64_t SetValue::Scan(uint64_t cursor, size_t count,
                        FunctionRef<void(std::string_view member)> emit) const {
  if (encoding() == Encoding::kHashtable) {
    return std::get<2>(rep_)->Scan(cursor, count,
                                   [&](std::string_view key, std::string_view) { emit(key); });
  }
  ForEach([&](std::string_view member) {
    emit(member);
    return true;
  });
  return 0;
}

void SetValue::RandomMembers(int64_t count, Rng& rng,
                             FunctionRef<void(std::string_view member)> emit) const {
  if (const auto* ints = std::get_if<IntSet>(&rep_)) {
    char text[kMaxIntDigits];
    SampleIndexes(ints->size(), count, rng, [&](size_t i) {
      emit(std::string_view(text, FormatInt(ints->At(i), text)));
    });
    return;
  }
  if (const auto* packed = std::get_if<PackedArray>(&rep_)) {
    std::vector<PackedArray::Pos> positions;
    positions.reserve(packed->size());
    for (PackedArray::Pos p = packed->Begin(); p != packed->End(); p = packed->Next(p)) {
      positions.push_back(p);
    }
    SampleIndexes(positions.size(), count, rng,
                  [&](size_t i) { emit(packed->Get(positions[i]).view()); });
    return;
  }
  std::get<2>(rep_)->Sample(count, rng,
                            [&](std::string_view key, std::string_view) { emit(key); });
}

std::optional<std::string> SetValue::Pop(Rng& rng) {
  const size_t n = size();
  if (n == 0) {
    return std::nullopt;
  }
  if (auto* ints = std::get_if<IntSet>(&rep_)) {
    const size_t i = static_cast<size_t>(rng.Below(n));
    char text[kMaxIntDigits];
    std::string member(text, FormatInt(ints->At(i), text));
    ints->EraseAt(i);
    return member;
  }
  if (auto* packed = std::get_if<PackedArray>(&rep_)) {
    const PackedArray::Pos p = packed->Seek(static_cast<int64_t>(rng.Below(n)));
    std::string member = packed->Get(p).ToString();
    packed->Erase(p);
    return member;
  }
  return std::get<2>(rep_)->PopRandom(rng);
}

std::vector<std::string> SetValue::Pop(size_t count, Rng& rng) {
  std::vector<std::string> popped;
  if (count == 0 || empty()) {
    return popped;
  }
  if (count >= size()) {
    // Everything goes: copy it out and start over empty in the same encoding.
    popped.reserve(size());
    ForEach([&](std::string_view member) {
      popped.emplace_back(member);
      return true;
    });
    switch (encoding()) {
      case Encoding::kIntset:
        rep_ = IntSet();
        break;
      case Encoding::kListpack:
        rep_ = PackedArray();
        break;
      case Encoding::kHashtable:
        rep_ = std::make_unique<StringTable>(/*with_values=*/false);
        break;
    }
    return popped;
  } else {
    popped.reserve(count);
    RandomMembers(static_cast<int64_t>(count), rng,
                  [&](std::string_view member) { popped.emplace_back(member); });
  }
  for (const std::string& member : popped) {
    Remove(member);
  }
  return popped;
}

}  // namespace hotkv::types
