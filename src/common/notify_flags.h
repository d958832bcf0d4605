// Keyspace notification classes (notify-keyspace-events), with Redis's letters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace hotkv {

namespace notify {
inline constexpr int64_t kKeyspace = 1 << 0;   // K
inline constexpr int64_t kKeyevent = 1 << 1;   // E
inline constexpr int64_t kGeneric = 1 << 2;    // g
inline constexpr int64_t kString = 1 << 3;     // $
inline constexpr int64_t kList = 1 << 4;       // l
inline constexpr int64_t kSet = 1 << 5;        // s
inline constexpr int64_t kHash = 1 << 6;       // h
inline constexpr int64_t kZSet = 1 << 7;       // z
inline constexpr int64_t kExpired = 1 << 8;    // x
inline constexpr int64_t kEvicted = 1 << 9;    // e
inline constexpr int64_t kStream = 1 << 10;    // t
inline constexpr int64_t kKeyMiss = 1 << 11;   // m
inline constexpr int64_t kModule = 1 << 13;    // d
inline constexpr int64_t kNew = 1 << 14;       // n
inline constexpr int64_t kOverwritten = 1 << 15;  // o (Redis 8.2; not part of A)
inline constexpr int64_t kTypeChanged = 1 << 16;  // c (Redis 8.2; not part of A)
// Redis 8.8's array type (a, part of A) and its subkey channels (__subkeyspace@ S,
// __subkeyevent@ T, __subkeyspaceitem@ I, __subkeyspaceevent@ V): accepted and shown by
// CONFIG, HotKV has no events for them.
inline constexpr int64_t kArray = 1 << 17;
inline constexpr int64_t kSubkeyspace = 1 << 18;
inline constexpr int64_t kSubkeyevent = 1 << 19;
inline constexpr int64_t kSubkeyspaceItem = 1 << 20;
inline constexpr int64_t kSubkeyspaceEvent = 1 << 21;
inline constexpr int64_t kAll = kGeneric | kString | kList | kSet | kHash | kZSet | kExpired |
                                kEvicted | kStream | kModule | kArray;
}  // namespace notify

// Every letter, in the order Redis's error message lists them.
inline constexpr const char* kNotifyClassLetters = "Ag$lshzxeKEtmdnocaSTIV";

// "KEA" -> bits; returns -1 on an unknown letter.
int64_t ParseNotifyFlags(std::string_view s);
std::string FormatNotifyFlags(int64_t flags);

}  // namespace hotkv
