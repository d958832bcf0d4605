// hotkv-server: flags and config file -> Config -> Server.
#include <cstdio>
#include <cstring>
#include <string>

#include "ai/ai.h"
#include "cluster/cluster_family.h"
#include "commands/register.h"
#include "common/memory_usage.h"
#include "common/page_prefault.h"
#include "persistence/aof_writer.h"
#include "persistence/snapshot.h"
#include "persistence/snapshot_family.h"
#include "scripting/function_family.h"
#include "scripting/scripting.h"
#include "search/search_family.h"
#include "server/config.h"
#include "server/server.h"

namespace {

void Usage() {
  fprintf(stderr,
          "Usage: hotkv-server [/path/to/hotkv.conf] [--option value ...]\n"
          "       hotkv-server -v | --version\n"
          "       hotkv-server -h | --help\n\n"
          "Examples:\n"
          "       hotkv-server --port 7000 --threads 4\n"
          "       hotkv-server /etc/hotkv.conf --maxclients 1000\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && (strcmp(argv[1], "-v") == 0 || strcmp(argv[1], "--version") == 0)) {
    printf("HotKV server v=%s\n", hotkv::kHotkvVersion);
    return 0;
  }
  if (argc >= 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
    Usage();
    return 0;
  }
  hotkv::Config config;
  if (hotkv::Status st = config.LoadArgs(argc, argv); !st.ok()) {
    fprintf(stderr, "%s", st.message().c_str());
    return 1;
  }
  // Before the workers allocate their buffers and the keyspace grows.
  if (config.hugepages() && !hotkv::UseTransparentHugePages()) {
    fprintf(stderr, "# Warning: 'hugepages yes' needs the mimalloc build; ignored\n");
  }
  // Not with huge pages: a 1 MiB commit inside a huge-page region is paged in by the
  // kernel's 2 MB fault anyway.
  if (config.prefault_memory() && !config.hugepages()) {
    hotkv::StartPagePrefaulter();
  }
  for (const std::string& w : config.StartupWarnings()) {
    fprintf(stderr, "# Warning: %s\n", w.c_str());
  }
  // As Redis: raise the open-files limit for maxclients, or lower maxclients to what the
  // limit allows.
  int64_t possible = 0;
  if (!hotkv::Config::FitOpenFilesLimit(config.maxclients(), &possible).ok()) {
    fprintf(stderr,
            "# Warning: the open-files limit allows %lld clients, not the %lld of maxclients; "
            "maxclients is now %lld\n",
            static_cast<long long>(possible), static_cast<long long>(config.maxclients()),
            static_cast<long long>(possible));
    (void)config.Set({{"maxclients", std::to_string(possible)}});
  }
  hotkv::CommandTable table;
  hotkv::RegisterAllCommands(table);
  hotkv::scripting::RegisterScriptingCommands(table);  // EVAL, SCRIPT (scripting/)
  hotkv::Server server(&config, &table);
  // Cluster mode keeps a per-slot index of keys (GETKEYSINSLOT visits only the slot's
  // keys; engine/keyspace.h), set before anything loads.
  server.keyspace().SetSlotIndex(config.GetString("cluster-enabled") == "yes");
  server.set_aof(hotkv::persistence::MakeAofService(server));
  // Persistence (persistence/): snapshots and loading, behind server/persistence_hooks.h.
  hotkv::persistence::Snapshotter snapshotter(&server);
  hotkv::persistence::RegisterSnapshotCommands(table, &snapshotter);
  // Scripting (scripting/): FUNCTION and its library registry (persistence hooks too).
  hotkv::scripting::RegisterFunctionCommands(table);
  // AI caches (ai/): SCACHE.* and their extension key types, before anything loads.
  hotkv::ai::RegisterAiCommands(table);
  // Search (search/): FT.* commands and the keyspace observer that feeds the indexes.
  hotkv::search::RegisterSearchCommands(table);
  hotkv::search::InstallSearch(server);
  // Cluster mode (cluster/): CLUSTER, ASKING, READONLY, READWRITE always exist (Redis
  // answers them without cluster support too); the state and routing only with
  // cluster-enabled yes.
  hotkv::cluster::RegisterClusterCommands(table);
  table.Finalize();
  hotkv::cluster::ClusterRuntime cluster;
  if (hotkv::Status st = cluster.Start(server, config); !st.ok()) {
    fprintf(stderr, "%s\n", st.message().c_str());
    return 1;
  }
  server.set_persistence(&snapshotter);
  snapshotter.PrepareStartup();
  int rc = server.Run();
  snapshotter.FinishShutdown();
  cluster.Stop();
  server.set_persistence(nullptr);
  return rc;
}
