// FunctionRegistry (see function_library.h).
#include <strings.h>

#include <mutex>
#include <utility>

#include "scripting/function_library.h"

namespace hotkv::scripting {

Status FunctionRegistry::AddTo(LibraryMap* libs, std::shared_ptr<const Library> lib,
                               bool replace) {
  auto same = libs->find(lib->name);
  if (same != libs->end() && !replace) {
    return Status::InvalidArgument("Library '" + lib->name + "' already exists");
  }
  for (const FunctionInfo& f : lib->functions) {
    for (const auto& [name, other] : *libs) {
      if (name == lib->name) {
        continue;  // the library being replaced
      }
      for (const FunctionInfo& g : other->functions) {
        if (strcasecmp(g.name.c_str(), f.name.c_str()) == 0) {  // names ignore case
          return Status::InvalidArgument("Function " + f.name + " already exists");
        }
      }
    }
  }
  (*libs)[lib->name] = std::move(lib);
  return Status::Ok();
}


namespace {
std::shared_ptr<const Library> MakeLibrary(ValidatedLibrary&& v) {
  auto lib = std::make_shared<Library>();
  lib->name = std::move(v.name);
  lib->code = std::move(v.code);
  lib->functions = std::move(v.functions);
  return lib;
}
}  // namespace

Result<ValidatedLibrary> FunctionRegistry::PrepareLoad(std::string_view code,
                                                       bool replace) const {
  // Redis checks the header and whether the library exists before running the code.
  Result<LibraryMetadata> md = ParseLibraryMetadata(code);
  if (!md.ok()) {
    return md.status();
  }
  if (!IsValidFunctionName(md->name)) {
    return Status::InvalidArgument(kBadNameError);
  }
  if (strcasecmp(md->engine.c_str(), "lua") != 0) {
    return Status::InvalidArgument("Engine '" + md->engine + "' not found");
  }
  if (!replace) {
    std::shared_lock lock(mu_);
    if (libraries_.count(md->name)) {
      return Status::InvalidArgument("Library '" + md->name + "' already exists");
    }
  }
  return ValidateLibrary(code);
}

Status FunctionRegistry::Apply(ValidatedLibrary&& lib, bool replace) {
  std::unique_lock lock(mu_);
  LibraryMap next = libraries_;
  if (Status st = AddTo(&next, MakeLibrary(std::move(lib)), replace); !st.ok()) {
    return st;
  }
  libraries_.swap(next);
  version_.fetch_add(1, std::memory_order_acq_rel);
  return Status::Ok();
}

Result<std::string> FunctionRegistry::Load(std::string_view code, bool replace) {
  Result<ValidatedLibrary> v = PrepareLoad(code, replace);
  if (!v.ok()) {
    return v.status();
  }
  std::string name = v->name;
  if (Status st = Apply(std::move(*v), replace); !st.ok()) {
    return st;
  }
  return name;
}

bool FunctionRegistry::Delete(std::string_view name) {
  std::unique_lock lock(mu_);
  auto it = libraries_.find(name);
  if (it == libraries_.end()) {
    return false;
  }
  libraries_.erase(it);
  version_.fetch_add(1, std::memory_order_acq_rel);
  return true;
}

void FunctionRegistry::Flush() {
  LibraryMap old;
  {
    std::unique_lock lock(mu_);
    old.swap(libraries_);
    version_.fetch_add(1, std::memory_order_acq_rel);
  }
}

Result<std::vector<ValidatedLibrary>> FunctionRegistry::PrepareRestore(
    const std::vector<std::string>& codes) const {
  // Every library of the payload is checked, and among themselves (a name twice is
  // "already exists", a function twice "Function x already exists").
  std::vector<ValidatedLibrary> out;
  LibraryMap seen;
  for (const std::string& code : codes) {
    Result<ValidatedLibrary> v = ValidateLibrary(code);
    if (!v.ok()) {
      return v.status();
    }
    auto probe = std::make_shared<Library>();
    probe->name = v->name;
    probe->functions = v->functions;
    if (Status st = AddTo(&seen, std::move(probe), /*replace=*/false); !st.ok()) {
      return st;
    }
    out.push_back(std::move(*v));
  }
  return out;
}

Status FunctionRegistry::ApplyRestore(std::vector<ValidatedLibrary>&& libs,
                                      RestorePolicy policy) {
  // Merged under the policy; nothing changes on an error.
  std::unique_lock lock(mu_);
  LibraryMap next;
  if (policy != RestorePolicy::kFlush) {
    next = libraries_;
  }
  for (const ValidatedLibrary& lib : libs) {
    if (policy == RestorePolicy::kAppend && next.count(lib.name)) {
      return Status::InvalidArgument("Library " + lib.name + " already exists");
    }
    if (policy == RestorePolicy::kReplace) {
      next.erase(lib.name);  // replaced; other libraries must still not collide
    }
  }
  for (ValidatedLibrary& lib : libs) {
    if (Status st = AddTo(&next, MakeLibrary(std::move(lib)), /*replace=*/false); !st.ok()) {
      return st;
    }
  }
  libraries_.swap(next);
  version_.fetch_add(1, std::memory_order_acq_rel);
  return Status::Ok();
}

Status FunctionRegistry::Restore(const std::vector<std::string>& codes, RestorePolicy policy) {
  Result<std::vector<ValidatedLibrary>> libs = PrepareRestore(codes);
  if (!libs.ok()) {
    return libs.status();
  }
  return ApplyRestore(std::move(*libs), policy);
}

std::vector<std::shared_ptr<const Library>> FunctionRegistry::Libraries() const {
  std::shared_lock lock(mu_);
  std::vector<std::shared_ptr<const Library>> out;
  out.reserve(libraries_.size());
  for (const auto& [name, lib] : libraries_) {
    out.push_back(lib);
  }
  return out;
}

std::vector<std::string> FunctionRegistry::Codes() const {
  std::shared_lock lock(mu_);
  std::vector<std::string> out;
  out.reserve(libraries_.size());
  for (const auto& [name, lib] : libraries_) {
    out.push_back(lib->code);
  }
  return out;
}

std::optional<FunctionRegistry::FunctionRef> FunctionRegistry::FindFunction(
    std::string_view name) const {
  std::shared_lock lock(mu_);
  for (const auto& [lib_name, lib] : libraries_) {
    for (size_t i = 0; i < lib->functions.size(); ++i) {
      const std::string& n = lib->functions[i].name;
      if (n.size() == name.size() && strncasecmp(n.data(), name.data(), n.size()) == 0) {
        return FunctionRef{lib, i};
      }
    }
  }
  return std::nullopt;
}

size_t FunctionRegistry::library_count() const {
  std::shared_lock lock(mu_);
  return libraries_.size();
}

size_t FunctionRegistry::function_count() const {
  std::shared_lock lock(mu_);
  size_t n = 0;
  for (const auto& [name, lib] : libraries_) {
    n += lib->functions.size();
  }
  return n;
}

}  // namespace hotkv::scripting
