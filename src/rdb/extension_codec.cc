// Extension values in Redis's module encoding (see extension_codec.h).
#include "rdb/extension_codec.h"

#include <cstring>
#include <string>

#include "engine/extension_value.h"

namespace hotkv::rdb {
namespace {

class Writer final : public ExtensionWriter {
 public:
  explicit Writer(Encoder& enc) : enc_(enc) {}
  void Unsigned(uint64_t v) override {
    enc_.Len(kModuleOpUint);
    enc_.Len(v);
  }
  void Signed(int64_t v) override {
    enc_.Len(kModuleOpSint);
    enc_.Len(static_cast<uint64_t>(v));
  }
  void Double(double v) override {
    enc_.Len(kModuleOpDouble);
    enc_.BinaryDouble(v);
  }
  void String(std::string_view s) override {
    enc_.Len(kModuleOpString);
    enc_.String(s);
  }

 private:
  Encoder& enc_;
};

class ReaderAdapter final : public ExtensionReader {
 public:
  explicit ReaderAdapter(Reader& r) : r_(r) {}
  bool Unsigned(uint64_t* v) override { return Op(kModuleOpUint, "an unsigned integer") && r_.Len(v); }
  bool Signed(int64_t* v) override {
    uint64_t u;
    if (!Op(kModuleOpSint, "a signed integer") || !r_.Len(&u)) return false;
    *v = static_cast<int64_t>(u);
    return true;
  }
  bool Double(double* v) override { return Op(kModuleOpDouble, "a double") && r_.BinaryDouble(v); }
  bool String(std::string* s) override {
    if (!Op(kModuleOpString, "a string")) return false;
    std::string scratch;
    std::string_view view;
    if (!r_.String(&scratch, &view)) return false;
    s->assign(view);
    return true;
  }
  bool Fail(std::string message) override { return r_.Fail(std::move(message)); }
  size_t remaining() const override { return r_.remaining(); }

 private:
  bool Op(uint64_t want, const char* what) {
    uint64_t op;
    if (!r_.Len(&op)) return false;
    if (op != want) return r_.Fail(std::string("Module value: expected ") + what);
    return true;
  }
  Reader& r_;
};

}  // namespace

void WriteExtension(Encoder& enc, const Entry& e) {
  const ExtensionValue* v = e.As<ExtensionValue>();
  const ExtensionType& t = v->type();
  enc.Len(ExtensionModuleId(t.rdb_name, t.encver));
  Writer w(enc);
  v->Save(w);
  enc.Len(kModuleOpEof);
}

bool IsExtensionModuleId(uint64_t module_id) {
  int encver;
  return FindExtensionType(module_id, &encver) != nullptr;
}

Entry* LoadExtension(Reader& r, uint64_t module_id, std::string_view key, bool expire_block) {
  int encver = 0;
  const ExtensionType* t = FindExtensionType(module_id, &encver);
  if (t == nullptr || t->load == nullptr) {
    r.Fail("module type '" + ModuleNameFromId(module_id) + "' is not supported");
    return nullptr;
  }
  ReaderAdapter adapter(r);
  std::unique_ptr<ExtensionValue> v = t->load(adapter, encver);
  if (v == nullptr || !r.ok()) {
    if (r.ok()) r.Fail(std::string(t->type_name) + " value: cannot be loaded");
    return nullptr;
  }
  uint64_t eof;
  if (!r.Len(&eof)) return nullptr;
  if (eof != kModuleOpEof) {
    r.Fail("Module value not terminated by EOF");
    return nullptr;
  }
  return NewExtensionEntry(key, std::move(v), expire_block);
}

}  // namespace hotkv::rdb
