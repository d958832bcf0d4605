// Registration of every command family into the command table.
#pragma once

#include "server/command_table.h"

namespace hotkv {

inline constexpr const char* kHotkvVersion = "0.1.0";
// The Redis version whose behaviour HotKV implements (reported as redis_version).
inline constexpr const char* kRedisCompatVersion = "8.0.0";

void RegisterStringCommands(CommandTable& t);
void RegisterStringOpCommands(CommandTable& t);
void RegisterIncrExCommand(CommandTable& t);  // Redis 8.8: INCREX
void RegisterBitmapCommands(CommandTable& t);    // SETBIT GETBIT BITCOUNT BITPOS BITOP
void RegisterBitFieldCommands(CommandTable& t);  // BITFIELD BITFIELD_RO
void RegisterStringCondCommands(CommandTable& t);  // Redis 8.4: DIGEST DELEX MSETEX
void RegisterKeyCommands(CommandTable& t);
void RegisterKeyspaceCommands(CommandTable& t);
void RegisterWaitCommands(CommandTable& t);  // WAIT, WAITAOF (no replicas, no AOF)
void RegisterConnectionCommands(CommandTable& t);
void RegisterClientCommands(CommandTable& t);
void RegisterMonitorCommands(CommandTable& t);  // MONITOR, CLIENT PAUSE / UNPAUSE
void RegisterLatencyCommands(CommandTable& t);  // LATENCY
void RegisterDebugCommands(CommandTable& t);    // DEBUG, MEMORY STATS / DOCTOR / MALLOC-STATS
// CLIENT TRACKING / CACHING / TRACKINGINFO / GETREDIR, called by RegisterClientCommands.
void RegisterClientTrackingCommands(CommandTable& t);
void RegisterServerCommands(CommandTable& t);
void RegisterServerAofCommands(CommandTable& t);  // BGREWRITEAOF
void RegisterIntrospectionCommands(CommandTable& t);
void RegisterPubsubCommands(CommandTable& t);
void RegisterTransactionCommands(CommandTable& t);
void RegisterListCommands(CommandTable& t);
void RegisterListBlockingCommands(CommandTable& t);
void RegisterZSetCommands(CommandTable& t);
void RegisterHashCommands(CommandTable& t);
void RegisterSetCommands(CommandTable& t);
void RegisterGeoCommands(CommandTable& t);  // GEOADD, GEOSEARCH, GEORADIUS, ...
void RegisterVectorSetCommands(CommandTable& t);  // Redis 8: VADD, VSIM, ...
void RegisterVsimCommands(CommandTable& t);       // HotKV: VSIM.CREATEINDEX, ...
void RegisterDumpCommands(CommandTable& t);       // DUMP, RESTORE, RESTORE-ASKING, MIGRATE
void RegisterHllCommands(CommandTable& t);        // PFADD, PFCOUNT, PFMERGE, PFDEBUG, ...
void RegisterSortCommands(CommandTable& t);       // SORT, SORT_RO
void RegisterJsonCommands(CommandTable& t);       // Redis 8: JSON.* (ReJSON-RL documents)
void RegisterStreamCommands(CommandTable& t);       // XADD XLEN XRANGE XREVRANGE XDEL XTRIM XSETID
void RegisterStreamReadCommands(CommandTable& t);   // XREAD XREADGROUP
void RegisterStreamGroupCommands(CommandTable& t);  // XGROUP XACK XPENDING XCLAIM XAUTOCLAIM
void RegisterStreamInfoCommands(CommandTable& t);   // XINFO
void RegisterStreamClaimCommands(CommandTable& t);  // XCLAIM XAUTOCLAIM
void RegisterStreamDelExCommands(CommandTable& t);  // Redis 8.2: XDELEX XACKDEL
void RegisterStreamIdmpCommands(CommandTable& t);   // Redis 8.6: XCFGSET XIDMPRECORD

inline void RegisterAllCommands(CommandTable& t) {
  RegisterStringCommands(t);
  RegisterStringOpCommands(t);
  RegisterIncrExCommand(t);
  RegisterBitmapCommands(t);
  RegisterBitFieldCommands(t);
  RegisterStringCondCommands(t);
  RegisterKeyCommands(t);
  RegisterKeyspaceCommands(t);
  RegisterWaitCommands(t);
  RegisterConnectionCommands(t);
  RegisterClientCommands(t);
  RegisterMonitorCommands(t);
  RegisterLatencyCommands(t);
  RegisterDebugCommands(t);
  RegisterServerCommands(t);
  RegisterServerAofCommands(t);
  RegisterIntrospectionCommands(t);
  RegisterPubsubCommands(t);
  RegisterTransactionCommands(t);
  RegisterListCommands(t);
  RegisterListBlockingCommands(t);
  RegisterZSetCommands(t);
  RegisterHashCommands(t);
  RegisterSetCommands(t);
  RegisterGeoCommands(t);
  RegisterVectorSetCommands(t);
  RegisterVsimCommands(t);
  RegisterDumpCommands(t);
  RegisterHllCommands(t);
  RegisterSortCommands(t);
  RegisterJsonCommands(t);
  RegisterStreamCommands(t);
  RegisterStreamReadCommands(t);
  RegisterStreamGroupCommands(t);
  RegisterStreamInfoCommands(t);
  RegisterStreamClaimCommands(t);
  RegisterStreamDelExCommands(t);
  RegisterStreamIdmpCommands(t);
}

}  // namespace hotkv
