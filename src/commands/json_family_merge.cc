// JSON documents, part 4: JSON.MERGE (RFC 7396 merge patch at a path).
//
// Edge cases honoured (as Redis): a missing key takes only the root path ("ERR new
// objects must be created at the root"); null members of the patch delete, so a null
// patch deletes what the path matches (the key, at the root); where the path matches
// nothing but names a new member of existing objects, the patch (without its nulls) is
// added as JSON.SET would.
#include <string>
#include <vector>

#include "commands/helpers.h"
#include "commands/json_common.h"
#include "engine/entry.h"

namespace hotkv {

namespace {

using json::Match;
using json::Node;
using json::Path;
using namespace jsoncmd;

// RFC 7396 merge patch of `patch` into `target`.
void MergePatch(Node& target, const Node& patch) {
  if (!patch.is_object()) {
    target = patch.Clone();
    return;
  }
  if (!target.is_object()) {
    target = Node::Object();
  }
  for (const json::Member& m : patch.members()) {
    if (m.value.is_null()) {
      target.Erase(m.key.str());
      continue;
    }
    Node* slot = target.Find(m.key.str());
    if (slot == nullptr) {
      target.Set(m.key.str(), Node::Null());
      slot = target.Find(m.key.str());
    }
    MergePatch(*slot, m.value);
  }
}

// A patch without its null members (what a merge adds where nothing was).
Node WithoutNulls(const Node& patch) {
  Node out = Node::Null();
  MergePatch(out, patch);
  return out;
}

}  // namespace

// JSON.MERGE key path value [FORMAT JSON|STRING]
void JsonMergeCommand(CommandContext& ctx) {
  DocScope packing;
  for (size_t i = 4; i < ctx.argc(); i++) {  // [FORMAT JSON|STRING]
    if (!EqualsIgnoreCase(ctx.arg(i), "FORMAT") || i + 1 >= ctx.argc() ||
        !(EqualsIgnoreCase(ctx.arg(i + 1), "JSON") || EqualsIgnoreCase(ctx.arg(i + 1), "STRING"))) {
      return ctx.rb().Error(errors::kSyntax);
    }
    i++;
  }
  std::optional<Path> p = PathArg(ctx, ctx.arg(2));
  if (!p) {
    return;
  }
  std::optional<Node> patch = JsonArg(ctx, ctx.arg(3));
  if (!patch) {
    return;
  }
  std::string_view key = ctx.arg(1);
  KeyRef ref;
  bool failed;
  Node* doc = WriteDoc(ctx, key, &ref, &failed);
  if (failed) {
    return;
  }
  if (doc == nullptr) {
    if (!p->is_root()) {
      return ctx.rb().Error(kNewAtRoot);
    }
    InsertDoc(ctx, ref, key, WithoutNulls(*patch));
  } else if (p->is_root() && patch->is_null()) {
    ctx.db().Erase(ref);
  } else {
    std::vector<Match> ms = json::Select(*p, *doc);
    if (patch->is_null()) {
      json::RemoveMatches(std::move(ms));
    } else if (!ms.empty()) {
      // The merged value is at most as deep as the patch where the patch is deeper.
      const int patch_depth = patch->Depth();
      for (const Match& m : ms) {
        if (m.depth + patch_depth >= json::kMaxDepth) {
          return ctx.rb().Error("ERR recursion limit exceeded");
        }
      }
      for (const Match& m : ms) {
        MergePatch(*m.node, *patch);
      }
    } else {
      std::string error;
      if (!SetInDoc(*doc, *p, WithoutNulls(*patch), Cond::kNone, &error)) {
        return error.empty() ? ctx.rb().Ok() : ctx.rb().Error(error);
      }
    }
  }
  Changed(ctx, key, "json.merge");
  ctx.rb().Ok();
}

}  // namespace hotkv
