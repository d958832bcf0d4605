// SHA-1 of a script body, as the hex digest Redis names scripts by (EVALSHA, SCRIPT LOAD,
// redis.sha1hex). Pure function; thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace hotkv::scripting {

// Lowercase 40-character hex SHA-1 of `data`.
std::string Sha1Hex(std::string_view data);

}  // namespace hotkv::scripting
