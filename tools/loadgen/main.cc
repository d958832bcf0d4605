// hotkv-loadgen: an open-loop RESP load generator. See README.md.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "modes.h"
#include "options.h"

int main(int argc, char** argv) {
  using hotkv::loadgen::Mode;
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<std::string> args(argv + 1, argv + argc);
  hotkv::loadgen::ParseResult parsed = hotkv::loadgen::ParseOptions(args);
  if (parsed.help) {
    std::fputs(hotkv::loadgen::UsageText().c_str(), stdout);
    return 0;
  }
  if (!parsed.options) {
    std::fprintf(stderr, "hotkv-loadgen: %s\n\n%s", parsed.error.c_str(),
                 hotkv::loadgen::UsageText().c_str());
    return 2;
  }
  const hotkv::loadgen::Options& options = *parsed.options;
  switch (options.mode) {
    case Mode::kRequest:
      return hotkv::loadgen::RunRequestMode(options);
    case Mode::kLoad:
      return hotkv::loadgen::RunLoadMode(options);
    case Mode::kPubsub:
      return hotkv::loadgen::RunPubsubMode(options);
  }
  return 2;
}
