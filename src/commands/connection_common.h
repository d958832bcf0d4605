// Helpers shared by the connection commands (connection_family.cc) and CLIENT
// (connection_family_client.cc).
//
// Thread safety: pure functions.
#pragma once

#include <string_view>

namespace hotkv {

// Client names and library names/versions (CLIENT SETNAME, HELLO SETNAME, CLIENT SETINFO):
// printable ASCII without spaces, as Redis checks them.
inline bool ValidClientName(std::string_view name) {
  for (char c : name) {
    if (c < '!' || c > '~') {
      return false;
    }
  }
  return true;
}

}  // namespace hotkv
