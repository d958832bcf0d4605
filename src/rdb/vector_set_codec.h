// rdb/vector_set_codec.h (internal): vector sets in Redis 8's RDB encoding — a module
// value (RDB type MODULE_2) of the built-in module type "vectorset", encoding version 0.
//
// Layout (each number is a module UINT opcode + length, each blob a module STRING):
//   dim, count, config (quantisation | M << 8), flags (1: projection, 2: attributes),
//   [projection input dim, matrix (output x input floats)],
//   per element: label, [attributes or ""], vector (stored form: normalised floats,
//   int8 codes or sign bits), parameter count, parameters (node id, level | version
//   << 24, per level: link count, link capacity, linked ids, [worst link: version 1],
//   then l2 norm | q8 range << 32 as float bits), and the module EOF opcode.
//
// Reading rebuilds HotKV's HNSW graph by inserting every element again (the stored
// vector, dequantised and de-normalised: the codes and VEMB come out as Redis had them);
// Redis's links are parsed and checked for bounds only. Writing emits HotKV's graph
// with only the reciprocal links (Redis refuses a graph with one-way links) and
// serialisation version 0, so Redis recomputes each layer's worst link itself.
#pragma once

#include <string>
#include <string_view>

#include "engine/entry.h"
#include "rdb/format.h"

namespace hotkv::rdb {

// The module id Redis gives "vectorset" (encoding version 0).
uint64_t VectorSetModuleId();

// Writes the module id and value of a vector-set entry (after the type byte and key).
// False with `error` set when the set cannot be represented in Redis's format (a metric
// other than cosine, a VSIM.CREATEINDEX set); nothing useful is then in `enc`'s output.
bool WriteVectorSet(Encoder& enc, const Entry& e, std::string* error);

// Reads a vector-set module value (after its module id) into a new entry; nullptr with
// `r` failed on error, nullptr with `*empty` set for a set without elements.
Entry* LoadVectorSet(Reader& r, std::string_view key, bool expire_block, bool* empty);

}  // namespace hotkv::rdb
