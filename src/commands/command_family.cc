// COMMAND and its subcommands (COUNT INFO DOCS LIST GETKEYS GETKEYSANDFLAGS HELP), all
// generated from the command table.
#include <algorithm>

#include "commands/helpers.h"
#include "commands/register.h"
#include "server/server.h"

namespace hotkv {

namespace {

void ReplyKeySpec(ReplyBuilder& rb, const KeySpec& ks) {
  rb.Map(ks.notes.empty() ? 3 : 4);
  if (!ks.notes.empty()) {
    rb.Bulk("notes");
    rb.SimpleString(ks.notes);
  }
  rb.Bulk("flags");
  auto flags = KeySpecFlagNames(ks.flags);
  rb.Set(flags.size());
  for (auto f : flags) {
    rb.SimpleString(f);
  }
  rb.Bulk("begin_search");
  rb.Map(2);
  rb.Bulk("type");
  if (ks.begin == KeySpec::Begin::kUnknown) {
    rb.Bulk("unknown");
    rb.Bulk("spec");
    rb.Map(0);
  } else if (ks.begin == KeySpec::Begin::kIndex) {
    rb.Bulk("index");
    rb.Bulk("spec");
    rb.Map(1);
    rb.Bulk("index");
    rb.Integer(ks.index);
  } else {
    rb.Bulk("keyword");
    rb.Bulk("spec");
    rb.Map(2);
    rb.Bulk("keyword");
    rb.Bulk(ks.keyword);
    rb.Bulk("startfrom");
    rb.Integer(ks.startfrom);
  }
  rb.Bulk("find_keys");
  rb.Map(2);
  rb.Bulk("type");
  if (ks.find == KeySpec::Find::kUnknown) {
    rb.Bulk("unknown");
    rb.Bulk("spec");
    rb.Map(0);
  } else if (ks.find == KeySpec::Find::kRange) {
    rb.Bulk("range");
    rb.Bulk("spec");
    rb.Map(3);
    rb.Bulk("lastkey");
    rb.Integer(ks.lastkey);
    rb.Bulk("keystep");
    rb.Integer(ks.step);
    rb.Bulk("limit");
    rb.Integer(ks.limit);
  } else {
    rb.Bulk("keynum");
    rb.Bulk("spec");
    rb.Map(3);
    rb.Bulk("keynumidx");
    rb.Integer(ks.keynumidx);
    rb.Bulk("firstkey");
    rb.Integer(ks.firstkey);
    rb.Bulk("keystep");
    rb.Integer(ks.step);
  }
}

void ReplyCommandInfo(ReplyBuilder& rb, const CommandSpec& c) {
  rb.Array(10);
  rb.Bulk(c.full_name);
  rb.Integer(c.arity);
  auto flags = CommandFlagNames(c.flags, c.movable_keys);
  rb.Set(flags.size());
  for (auto f : flags) {
    rb.SimpleString(f);
  }
  rb.Integer(c.first_key);
  rb.Integer(c.last_key);
  rb.Integer(c.key_step);
  rb.Set(c.acl_categories.size());
  for (const auto& a : c.acl_categories) {
    rb.SimpleString("@" + a);
  }
  rb.Set(c.tips.size());
  for (const auto& t : c.tips) {
    rb.SimpleString(t);
  }
  rb.Array(c.key_specs.size());
  for (const auto& ks : c.key_specs) {
    ReplyKeySpec(rb, ks);
  }
  rb.Array(c.subcommands.size());
  for (const auto& s : c.subcommands) {
    ReplyCommandInfo(rb, *s);
  }
}

// Key arguments get consecutive key spec indexes, capped at the last spec (LCS's key1 and
// key2 share one range spec).
void ReplyDocArg(ReplyBuilder& rb, const DocArg& a, int* key_index, int last_spec) {
  size_t fields = 2;
  int ksi = -1;
  if (a.type == "key") {
    ksi = std::min((*key_index)++, last_spec);
    fields++;
  }
  // A pure token always has one, even an empty one (MIGRATE's empty-string: "").
  const bool has_token = !a.token.empty() || a.type == "pure-token";
  if (has_token) {
    fields++;
  }
  bool has_flags = a.optional || a.multiple || a.multiple_token;
  if (has_flags) {
    fields++;
  }
  if (!a.children.empty()) {
    fields++;
  }
  rb.Map(fields);
  rb.Bulk("name");
  rb.Bulk(a.name);
  rb.Bulk("type");
  rb.Bulk(a.type);
  if (ksi >= 0) {
    rb.Bulk("key_spec_index");
    rb.Integer(ksi);
  }
  if (has_token) {
    rb.Bulk("token");
    rb.Bulk(a.token);
  }
  if (has_flags) {
    rb.Bulk("flags");
    rb.Set(static_cast<size_t>(a.optional) + a.multiple + a.multiple_token);
    if (a.optional) {
      rb.SimpleString("optional");
    }
    if (a.multiple) {
      rb.SimpleString("multiple");
    }
    if (a.multiple_token) {
      rb.SimpleString("multiple_token");
    }
  }
  if (!a.children.empty()) {
    rb.Bulk("arguments");
    rb.Array(a.children.size());
    for (const auto& ch : a.children) {
      ReplyDocArg(rb, ch, key_index, last_spec);
    }
  }
}

void ReplyCommandDocs(ReplyBuilder& rb, const CommandSpec& c) {
  const CommandDoc& d = c.doc;
  std::vector<DocArg> args = ParseSyntax(d.syntax);
  size_t fields = 4;
  bool deprecated = !d.doc_flags.empty();
  if (deprecated) {
    fields += 1 + (d.deprecated_since.empty() ? 0 : 1) + (d.replaced_by.empty() ? 0 : 1);
  }
  if (!args.empty()) {
    fields++;
  }
  if (!c.subcommands.empty()) {
    fields++;
  }
  rb.Map(fields);
  rb.Bulk("summary");
  rb.Bulk(d.summary);
  rb.Bulk("since");
  rb.Bulk(d.since);
  rb.Bulk("group");
  rb.Bulk(d.group);
  rb.Bulk("complexity");
  rb.Bulk(d.complexity);
  if (deprecated) {
    rb.Bulk("doc_flags");
    rb.Set(1);
    rb.SimpleString(d.doc_flags);
    if (!d.deprecated_since.empty()) {
      rb.Bulk("deprecated_since");
      rb.Bulk(d.deprecated_since);
    }
    if (!d.replaced_by.empty()) {
      rb.Bulk("replaced_by");
      rb.Bulk(d.replaced_by);
    }
  }
  if (!args.empty()) {
    rb.Bulk("arguments");
    rb.Array(args.size());
    int key_index = 0;
    for (const auto& a : args) {
      ReplyDocArg(rb, a, &key_index, std::max(0, static_cast<int>(c.key_specs.size()) - 1));
    }
  }
  if (!c.subcommands.empty()) {
    rb.Bulk("subcommands");
    rb.Map(c.subcommands.size());
    for (const auto& s : c.subcommands) {
      rb.Bulk(s->full_name);
      ReplyCommandDocs(rb, *s);
    }
  }
}

// Finds "get" or "config|get".
const CommandSpec* FindByFullName(const CommandTable& t, std::string_view name) {
  size_t bar = name.find('|');
  if (bar == std::string_view::npos) {
    return t.Find(name);
  }
  const CommandSpec* parent = t.Find(name.substr(0, bar));
  return parent ? parent->FindSub(name.substr(bar + 1)) : nullptr;
}

void CommandCommand(CommandContext& ctx) {
  const CommandTable& t = ctx.server().commands();
  ctx.rb().Array(t.size());
  for (const auto& c : t.all()) {
    ReplyCommandInfo(ctx.rb(), *c);
  }
}

void CommandCountCommand(CommandContext& ctx) {
  ctx.rb().Integer(static_cast<int64_t>(ctx.server().commands().size()));
}

void CommandInfoCommand(CommandContext& ctx) {
  const CommandTable& t = ctx.server().commands();
  if (ctx.argc() == 2) {
    return CommandCommand(ctx);
  }
  ctx.rb().Array(ctx.argc() - 2);
  for (size_t i = 2; i < ctx.argc(); i++) {
    const CommandSpec* c = FindByFullName(t, ctx.arg(i));
    if (c == nullptr) {
      ctx.rb().NullArray();
    } else {
      ReplyCommandInfo(ctx.rb(), *c);
    }
  }
}

void CommandDocsCommand(CommandContext& ctx) {
  const CommandTable& t = ctx.server().commands();
  std::vector<const CommandSpec*> list;
  if (ctx.argc() == 2) {
    for (const auto& c : t.all()) {
      list.push_back(c.get());
    }
  } else {
    for (size_t i = 2; i < ctx.argc(); i++) {
      if (const CommandSpec* c = FindByFullName(t, ctx.arg(i))) {
        list.push_back(c);
      }
    }
  }
  ctx.rb().Map(list.size());
  for (const CommandSpec* c : list) {
    ctx.rb().Bulk(c->full_name);
    ReplyCommandDocs(ctx.rb(), *c);
  }
}

void CommandListCommand(CommandContext& ctx) {
  std::string_view filter, value;
  if (ctx.argc() == 5 && EqualsIgnoreCase(ctx.arg(2), "FILTERBY")) {
    filter = ctx.arg(3);
    value = ctx.arg(4);
    if (!EqualsIgnoreCase(filter, "MODULE") && !EqualsIgnoreCase(filter, "ACLCAT") &&
        !EqualsIgnoreCase(filter, "PATTERN")) {
      return ctx.rb().Error(errors::kSyntax);
    }
  } else if (ctx.argc() != 2) {
    return ctx.rb().Error(errors::kSyntax);
  }
  std::vector<std::string> names;
  auto consider = [&](const CommandSpec& c) {
    if (EqualsIgnoreCase(filter, "MODULE")) {
      return;  // no modules
    }
    if (EqualsIgnoreCase(filter, "ACLCAT")) {
      bool found = false;
      for (const auto& cat : c.acl_categories) {
        found |= EqualsIgnoreCase(cat, value);
      }
      if (!found) {
        return;
      }
    } else if (EqualsIgnoreCase(filter, "PATTERN") && !GlobMatch(value, c.full_name, true)) {
      return;
    }
    names.push_back(c.full_name);
  };
  for (const auto& c : ctx.server().commands().all()) {
    consider(*c);
    for (const auto& s : c->subcommands) {
      consider(*s);
    }
  }
  ctx.rb().Array(names.size());
  for (const auto& n : names) {
    ctx.rb().Bulk(n);
  }
}

// Redis's getkeys_proc of the commands that have one here. COMMAND GETKEYS uses them
// where the key specs cannot answer, as Redis does: SET always (its spec has
// VARIABLE_FLAGS: GET makes the key RW instead of OW), the numkeys commands when the
// specs reject the arguments. Those go by genericGetKeys: the count read with atoi (so
// "2abc" counts 2), keys without flags, the destination last.
struct GenericKeysProc {
  std::string_view name;
  int store, count, first;
};
constexpr GenericKeysProc kGenericKeysProcs[] = {
    {"zunionstore", 1, 2, 3}, {"zinterstore", 1, 2, 3}, {"zdiffstore", 1, 2, 3},
    {"zunion", 0, 1, 2},      {"zinter", 0, 1, 2},      {"zdiff", 0, 1, 2},
    {"zintercard", 0, 1, 2},  {"sintercard", 0, 1, 2},  {"lmpop", 0, 1, 2},
    {"zmpop", 0, 1, 2},       {"blmpop", 0, 2, 3},      {"bzmpop", 0, 2, 3},
};

// C's atoi on a string_view: optional spaces, a sign, digits up to the first non-digit.
int64_t Atoi(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) {
    i++;
  }
  bool neg = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    neg = s[i] == '-';
    i++;
  }
  int64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9' && v < (int64_t{1} << 40); i++) {
    v = v * 10 + (s[i] - '0');
  }
  return neg ? -v : v;
}

std::vector<KeyPosition> GenericGetKeys(const GenericKeysProc& p,
                                        const std::vector<std::string_view>& args) {
  const int64_t argc = static_cast<int64_t>(args.size());
  const int64_t num = Atoi(args[p.count]);
  std::vector<KeyPosition> out;
  if (num < 1 || num > argc - p.first) {
    return out;
  }
  for (int64_t i = 0; i < num; i++) {
    out.push_back({static_cast<int>(p.first + i), 0});
  }
  if (p.store > 0) {
    out.push_back({p.store, 0});
  }
  return out;
}

// Redis's setGetKeys: the key is RW (read too) with GET, else only overwritten.
std::vector<KeyPosition> SetGetKeys(const std::vector<std::string_view>& args) {
  for (size_t i = 3; i < args.size(); i++) {
    if (EqualsIgnoreCase(args[i], "GET")) {
      return {{1, kKeyRW | kKeyAccess | kKeyUpdate}};
    }
  }
  return {{1, kKeyOW | kKeyUpdate}};
}

// Shared by GETKEYS and GETKEYSANDFLAGS, in Redis's order of checks: the command (a
// subcommand when the command has them and more arguments follow), whether it has keys
// at all, its arity, then the keys. Replies with the error and returns false, or fills
// `keys` (empty for a no_mandatory_keys command whose keys could not be found).
bool ResolveKeys(CommandContext& ctx, std::vector<std::string_view>* args,
                 std::vector<KeyPosition>* keys) {
  args->assign(ctx.args().begin() + 2, ctx.args().end());
  const CommandSpec* c = ctx.server().commands().Find((*args)[0]);
  if (c != nullptr && args->size() > 1 && !c->subcommands.empty()) {
    c = c->FindSub((*args)[1]);
  }
  if (c == nullptr) {
    ctx.rb().Error("ERR Invalid command specified");
    return false;
  }
  if (!c->HasKeys()) {
    ctx.rb().Error("ERR The command has no key arguments");
    return false;
  }
  int argc = static_cast<int>(args->size());
  if ((c->arity > 0 && argc != c->arity) || argc < -c->arity) {
    ctx.rb().Error("ERR Invalid number of arguments specified for command");
    return false;
  }
  bool variable_flags = false;
  for (const KeySpec& ks : c->key_specs) {
    variable_flags |= (ks.flags & kKeyVariableFlags) != 0;
  }
  std::optional<std::vector<KeyPosition>> found;
  if (!variable_flags) {
    found = c->KeysBySpecs(*args);
  }
  if (!found && c->parent == nullptr) {
    if (c->name == "set") {
      found = SetGetKeys(*args);
    }
    for (const GenericKeysProc& p : kGenericKeysProcs) {
      if (c->name == p.name) {
        found = GenericGetKeys(p, *args);
      }
    }
  }
  if (!found && c->parent == nullptr && c->name == "sort") {
    // Redis's sortGetKeys: the key is read, STORE's destination overwritten.
    std::vector<int> pos;
    c->getkeys(*args, &pos);
    found.emplace();
    for (int p : pos) {
      found->push_back({p, p == 1 ? kKeyRO | kKeyAccess : kKeyOW | kKeyUpdate});
    }
  }
  if (!found && c->getkeys != nullptr) {
    std::vector<int> pos;
    c->getkeys(*args, &pos);
    found.emplace();
    // As Redis's key procs (migrateGetKeys): the flags of the first key spec.
    const uint32_t flags = c->key_specs.empty() ? 0 : c->key_specs[0].flags;
    for (int p : pos) {
      found->push_back({p, flags});
    }
  }
  if (!found || found->empty()) {
    if (c->is(kCmdNoMandatoryKeys)) {
      keys->clear();
      return true;
    }
    ctx.rb().Error("ERR Invalid arguments specified for command");
    return false;
  }
  *keys = std::move(*found);
  return true;
}

void CommandGetKeysCommand(CommandContext& ctx) {
  std::vector<std::string_view> args;
  std::vector<KeyPosition> keys;
  if (!ResolveKeys(ctx, &args, &keys)) {
    return;
  }
  ctx.rb().Array(keys.size());
  for (const KeyPosition& k : keys) {
    ctx.rb().Bulk(args[k.pos]);
  }
}

void CommandGetKeysAndFlagsCommand(CommandContext& ctx) {
  std::vector<std::string_view> args;
  std::vector<KeyPosition> keys;
  if (!ResolveKeys(ctx, &args, &keys)) {
    return;
  }
  ctx.rb().Array(keys.size());
  for (const KeyPosition& k : keys) {
    ctx.rb().Array(2);
    ctx.rb().Bulk(args[k.pos]);
    auto names = KeySpecFlagNames(k.flags);
    ctx.rb().Set(names.size());
    for (auto n : names) {
      ctx.rb().SimpleString(n);
    }
  }
}

void CommandHelpCommand(CommandContext& ctx) {
  static const char* kLines[] = {
      "COMMAND <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
      "(no subcommand)", "    Return details about all commands.",
      "COUNT", "    Return the total number of commands in this server.",
      "LIST", "    Return a list of all commands in this server.",
      "INFO [<command-name> ...]", "    Return details about multiple commands.",
      "DOCS [<command-name> ...]", "    Return documentation details about multiple commands.",
      "GETKEYS <full-command>", "    Return the keys from a full command.",
      "GETKEYSANDFLAGS <full-command>", "    Return the keys and the access flags from a full command.",
      "HELP", "    Print this help."};
  ctx.rb().Array(std::size(kLines));
  for (const char* l : kLines) {
    ctx.rb().SimpleString(l);
  }
}

// COMMAND without a subcommand lists everything; with one, dispatches to it. The table
// handles "command <sub>" through subcommands, so the bare form needs its own handler.
void CommandRootCommand(CommandContext& ctx) {
  if (ctx.argc() == 1) {
    return CommandCommand(ctx);
  }
  const CommandSpec* sub = ctx.command()->FindSub(ctx.arg(1));
  if (sub == nullptr) {
    return ctx.rb().Error("ERR unknown subcommand '" + std::string(ctx.arg(1).substr(0, 128)) +
                          "'. Try COMMAND HELP.");
  }
  int argc = static_cast<int>(ctx.argc());
  if ((sub->arity > 0 && argc != sub->arity) || argc < -sub->arity) {
    return ctx.rb().Error("ERR wrong number of arguments for '" + sub->full_name + "' command");
  }
  sub->handler(ctx);
}

}  // namespace

void RegisterIntrospectionCommands(CommandTable& t) {
  t.Add({.name = "command", .arity = -1, .flags = "loading stale", .acl = "@slow @connection",
         .handler = CommandRootCommand,
         .doc = {"server", "2.8.13", "O(N) where N is the total number of Redis commands",
                 "Returns details about every command.", ""},
         .tips = {"nondeterministic_output_order"}});
  auto sub = [&t](CommandDef d) { t.AddSub("command", std::move(d)); };
  sub({.name = "count", .arity = 2, .flags = "loading stale", .acl = "@slow @connection",
       .handler = CommandCountCommand, .doc = {"server", "2.8.13", "O(1)", "Returns the number of commands.", ""}});
  sub({.name = "info", .arity = -2, .flags = "loading stale", .acl = "@slow @connection",
       .handler = CommandInfoCommand,
       .doc = {"server", "2.8.13", "O(N) where N is the number of commands to look up",
               "Returns details about commands (all of them without arguments).", "[command-name [command-name ...]]"},
       .tips = {"nondeterministic_output_order"}});
  sub({.name = "docs", .arity = -2, .flags = "loading stale", .acl = "@slow @connection",
       .handler = CommandDocsCommand,
       .doc = {"server", "7.0.0", "O(N) where N is the number of commands to look up",
               "Returns documentation about commands.", "[command-name [command-name ...]]"},
       .tips = {"nondeterministic_output_order"}});
  sub({.name = "list", .arity = -2, .flags = "loading stale", .acl = "@slow @connection",
       .handler = CommandListCommand,
       .doc = {"server", "7.0.0", "O(N) where N is the total number of Redis commands",
               "Returns command names, optionally filtered.",
               "[filterby: FILTERBY <MODULE module-name | ACLCAT category | PATTERN pattern>]"},
       .tips = {"nondeterministic_output_order"}});
  sub({.name = "getkeys", .arity = -3, .flags = "loading stale", .acl = "@slow @connection",
       .handler = CommandGetKeysCommand,
       .doc = {"server", "2.8.13", "O(N) where N is the number of arguments to the command",
               "Extracts the key names from a full command.", "command [arg [arg ...]]"}});
  sub({.name = "getkeysandflags", .arity = -3, .flags = "loading stale", .acl = "@slow @connection",
       .handler = CommandGetKeysAndFlagsCommand,
       .doc = {"server", "7.0.0", "O(N) where N is the number of arguments to the command",
               "Extracts the key names and their access flags from a full command.", "command [arg [arg ...]]"}});
  sub({.name = "help", .arity = 2, .flags = "loading stale", .acl = "@slow @connection",
       .handler = CommandHelpCommand, .doc = {"server", "5.0.0", "O(1)", "Returns helpful text about COMMAND.", ""}});
}

}  // namespace hotkv
