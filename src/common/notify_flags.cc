#include "common/notify_flags.h"

namespace hotkv {

int64_t ParseNotifyFlags(std::string_view s) {
  int64_t flags = 0;
  for (char c : s) {
    switch (c) {
      case 'A': flags |= notify::kAll; break;
      case 'g': flags |= notify::kGeneric; break;
      case '$': flags |= notify::kString; break;
      case 'l': flags |= notify::kList; break;
      case 's': flags |= notify::kSet; break;
      case 'h': flags |= notify::kHash; break;
      case 'z': flags |= notify::kZSet; break;
      case 'x': flags |= notify::kExpired; break;
      case 'e': flags |= notify::kEvicted; break;
      case 'K': flags |= notify::kKeyspace; break;
      case 'E': flags |= notify::kKeyevent; break;
      case 't': flags |= notify::kStream; break;
      case 'm': flags |= notify::kKeyMiss; break;
      case 'd': flags |= notify::kModule; break;
      case 'n': flags |= notify::kNew; break;
      case 'o': flags |= notify::kOverwritten; break;
      case 'c': flags |= notify::kTypeChanged; break;
      case 'a': flags |= notify::kArray; break;
      case 'S': flags |= notify::kSubkeyspace; break;
      case 'T': flags |= notify::kSubkeyevent; break;
      case 'I': flags |= notify::kSubkeyspaceItem; break;
      case 'V': flags |= notify::kSubkeyspaceEvent; break;
      default: return -1;
    }
  }
  return flags;
}

std::string FormatNotifyFlags(int64_t flags) {
  std::string out;
  if ((flags & notify::kAll) == notify::kAll) {
    out += 'A';
  } else {
    if (flags & notify::kGeneric) out += 'g';
    if (flags & notify::kString) out += '$';
    if (flags & notify::kList) out += 'l';
    if (flags & notify::kSet) out += 's';
    if (flags & notify::kHash) out += 'h';
    if (flags & notify::kZSet) out += 'z';
    if (flags & notify::kExpired) out += 'x';
    if (flags & notify::kEvicted) out += 'e';
    if (flags & notify::kStream) out += 't';
    if (flags & notify::kModule) out += 'd';
    if (flags & notify::kArray) out += 'a';
    // n, o and c are not part of A, but Redis 8.8 does not show them beside it either.
    if (flags & notify::kNew) out += 'n';
    if (flags & notify::kOverwritten) out += 'o';
    if (flags & notify::kTypeChanged) out += 'c';
  }
  if (flags & notify::kKeyspace) out += 'K';
  if (flags & notify::kKeyevent) out += 'E';
  if (flags & notify::kKeyMiss) out += 'm';
  if (flags & notify::kSubkeyspace) out += 'S';
  if (flags & notify::kSubkeyevent) out += 'T';
  if (flags & notify::kSubkeyspaceItem) out += 'I';
  if (flags & notify::kSubkeyspaceEvent) out += 'V';
  return out;
}

}  // namespace hotkv
