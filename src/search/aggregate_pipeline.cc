// FT.AGGREGATE's pipeline: property resolution against the schema, and the pull-based
// stages (documents, APPLY, FILTER, GROUPBY/REDUCE, SORTBY/LIMIT).
#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "common/random.h"
#include "common/string_util.h"
#include "search/aggregate_plan.h"

namespace hotkv::search {
namespace {

// The properties of one row shape, in the order the steps first named them.
struct Lookup {
  std::vector<std::string> names;
  std::unordered_map<std::string, int> index;
  int Find(const std::string& n) const {
    auto it = index.find(n);
    return it == index.end() ? -1 : it->second;
  }
  int Add(const std::string& n) {
    int i = Find(n);
    if (i >= 0) {
      return i;
    }
    names.push_back(n);
    index.emplace(n, static_cast<int>(names.size() - 1));
    return static_cast<int>(names.size() - 1);
  }
};

// How a property of the documents' rows is filled.
struct BaseLoad {
  enum class Source : uint8_t { kKey, kScore, kSortValue, kDocField, kYield } source;
  int slot = -1;
  size_t field = 0;    // kSortValue: schema position; kYield: which yield
  std::string path;    // kDocField
  bool numeric = false;
  bool normalized = false;
};

void SetSlot(RowValues& row, int slot, Value v) {
  if (static_cast<size_t>(slot) >= row.size()) {
    row.resize(slot + 1);
  }
  row[slot] = std::move(v);
}

const Value* GetSlot(const RowValues& row, int slot) {
  if (slot < 0 || static_cast<size_t>(slot) >= row.size() || !row[slot].has_value()) {
    return nullptr;
  }
  return &*row[slot];
}

class Stage {
 public:
  virtual ~Stage() = default;
  // false: no more rows.
  virtual Result<bool> Next(RowValues* row) = 0;
  std::unique_ptr<Stage> up;
};

}  // namespace

struct AggregatePipeline::Impl {
  std::vector<AggregateField> schema;
  std::vector<Lookup> lookups;  // one per row shape (a GROUPBY starts the next)
  std::vector<BaseLoad> base_loads;
  std::vector<std::string> doc_paths;  // kDocField paths, loaded in one call
  bool load_all = false;
  std::unique_ptr<Stage> last;
  AggregateSource* source = nullptr;
  std::optional<std::vector<RowValues>> materialized;
  uint64_t counter = 0;

  const AggregateField* FindField(const std::string& name, size_t* pos) const {
    for (size_t i = 0; i < schema.size(); ++i) {
      if (schema[i].name == name) {
        *pos = i;
        return &schema[i];
      }
    }
    return nullptr;
  }

  RowValues LoadRow(size_t i) {
    RowValues row(lookups[0].names.size());
    std::vector<std::pair<std::string, std::string>> fields;
    if (!doc_paths.empty()) {
      fields = source->Load(i, &doc_paths);
    }
    for (const BaseLoad& l : base_loads) {
      switch (l.source) {
        case BaseLoad::Source::kKey:
          SetSlot(row, l.slot, Value::String(source->Key(i)));
          break;
        case BaseLoad::Source::kScore:
          SetSlot(row, l.slot, Value::Number(source->Score(i)));
          break;
        case BaseLoad::Source::kYield: {
          Value v = source->Yield(i, l.field);
          if (!v.is_null()) {
            SetSlot(row, l.slot, std::move(v));
          }
          break;
        }
        case BaseLoad::Source::kSortValue: {
          Value v = source->SortValue(i, l.field);
          if (v.is_null()) {
            break;
          }
          if (v.is_string() && l.normalized) {
            ToLowerInPlace(v.str);
          }
          SetSlot(row, l.slot, std::move(v));
          break;
        }
        case BaseLoad::Source::kDocField:
          for (const auto& [f, val] : fields) {
            if (f == l.path) {
              std::optional<double> d;
              if (l.numeric) {
                d = ParseDouble(val);
              }
              SetSlot(row, l.slot, d ? Value::Number(*d) : Value::String(val));
              break;
            }
          }
          break;
      }
    }
    if (load_all) {
      for (auto& [f, val] : source->Load(i, nullptr)) {
        int slot = lookups[0].Add(f);
        if (GetSlot(row, slot) == nullptr) {
          SetSlot(row, slot, Value::String(std::move(val)));
        }
      }
    }
    return row;
  }
};

namespace {

class DocStage : public Stage {
 public:
  explicit DocStage(AggregatePipeline::Impl* impl) : impl_(impl) {}
  Result<bool> Next(RowValues* row) override {
    auto* p = impl_;
    size_t n = p->materialized ? p->materialized->size()
                               : (p->source != nullptr ? p->source->size() : 0);
    if (next_ >= n) {
      return false;
    }
    size_t i = next_++;
    ++p->counter;
    *row = p->materialized ? std::move((*p->materialized)[i]) : p->LoadRow(i);
    return true;
  }

 private:
  AggregatePipeline::Impl* impl_;
  size_t next_ = 0;
};

class ApplyStage : public Stage {
 public:
  ApplyStage(std::unique_ptr<Expr> expr, int slot) : expr_(std::move(expr)), slot_(slot) {}
  Result<bool> Next(RowValues* row) override {
    auto more = up->Next(row);
    if (!more.ok() || !*more) {
      return more;
    }
    auto v = expr_->Eval(*row);
    if (!v.ok()) {
      return v.status();
    }
    SetSlot(*row, slot_, std::move(*v));
    return true;
  }

 private:
  std::unique_ptr<Expr> expr_;
  int slot_;
};

class FilterStage : public Stage {
 public:
  explicit FilterStage(std::unique_ptr<Expr> expr) : expr_(std::move(expr)) {}
  Result<bool> Next(RowValues* row) override {
    while (true) {
      auto more = up->Next(row);
      if (!more.ok() || !*more) {
        return more;
      }
      auto v = expr_->Eval(*row);
      if (!v.ok()) {
        return v.status();
      }
      if (v->Truthy()) {
        return true;
      }
    }
  }

 private:
  std::unique_ptr<Expr> expr_;
};

// Missing values sort last in either direction.
int CompareRows(const RowValues& a, const RowValues& b,
                const std::vector<std::pair<int, bool>>& keys) {
  for (const auto& [slot, asc] : keys) {
    const Value* x = GetSlot(a, slot);
    const Value* y = GetSlot(b, slot);
    bool xm = x == nullptr || x->is_null(), ym = y == nullptr || y->is_null();
    if (xm || ym) {
      if (xm != ym) {
        return xm ? 1 : -1;
      }
      continue;
    }
    int c = CompareValues(*x, *y);
    if (c != 0) {
      return asc ? c : -c;
    }
  }
  return 0;
}

class ArrangeStage : public Stage {
 public:
  // `grouped`: the rows come from a GROUPBY (no document ids): RediSearch's heap then
  // breaks ties with later rows first (approximated by reversing them before a stable
  // sort); documents' ties keep document order.
  ArrangeStage(std::vector<std::pair<int, bool>> keys, uint64_t cap, bool has_limit,
               uint64_t offset, uint64_t limit, bool grouped)
      : keys_(std::move(keys)), cap_(cap), has_limit_(has_limit), offset_(offset),
        limit_(limit), grouped_(grouped) {}

  Result<bool> Next(RowValues* row) override {
    if (has_limit_ && limit_ == 0) {  // RediSearch still reads everything
      while (true) {
        auto more = up->Next(row);
        if (!more.ok() || !*more) {
          return more.ok() ? Result<bool>(false) : more;
        }
      }
    }
    if (!keys_.empty() && !sorted_) {
      sorted_ = true;
      RowValues r;
      while (true) {
        auto more = up->Next(&r);
        if (!more.ok()) {
          return more;
        }
        if (!*more) {
          break;
        }
        rows_.push_back(std::move(r));
      }
      if (grouped_) {
        std::reverse(rows_.begin(), rows_.end());
      }
      std::stable_sort(rows_.begin(), rows_.end(), [&](const RowValues& a, const RowValues& b) {
        return CompareRows(a, b, keys_) < 0;
      });
      if (rows_.size() > cap_) {
        rows_.resize(cap_);
      }
    }
    while (true) {
      if (has_limit_ && emitted_ >= offset_ + limit_) {
        return false;
      }
      if (!keys_.empty()) {
        if (pos_ >= rows_.size()) {
          return false;
        }
        *row = std::move(rows_[pos_++]);
      } else {
        auto more = up->Next(row);
        if (!more.ok() || !*more) {
          return more;
        }
      }
      if (emitted_++ >= offset_ || !has_limit_) {
        return true;
      }
    }
  }

 private:
  std::vector<std::pair<int, bool>> keys_;
  uint64_t cap_;
  bool has_limit_;
  uint64_t offset_, limit_;
  bool grouped_;
  bool sorted_ = false;
  std::vector<RowValues> rows_;
  size_t pos_ = 0;
  uint64_t emitted_ = 0;
};

enum class RedKind : uint8_t {
  kCount, kCountDistinct, kSum, kMin, kMax, kAvg, kToList, kFirstValue, kStddev,
  kQuantile, kRandomSample
};

struct RedDef {
  RedKind kind;
  int slot = -1;
  int by_slot = -1;
  bool by_asc = true;
  double q = 0;
  size_t k = 0;
};

struct Accum {
  uint64_t count = 0;
  double sum = 0;
  bool have = false;
  double extreme = 0;
  std::vector<double> nums;
  std::vector<Value> list;
  std::unordered_set<std::string> seen;
  std::optional<Value> first;
  std::optional<Value> first_by;
  uint64_t sampled = 0;
};

void AddToAccum(const RedDef& d, Accum& a, const RowValues& row) {
  ++a.count;
  const Value* v = GetSlot(row, d.slot);
  double num;
  switch (d.kind) {
    case RedKind::kCount:
      return;
    case RedKind::kSum:
    case RedKind::kAvg:
      if (v != nullptr && v->ToNumber(&num)) {
        a.sum += num;
      }
      return;
    case RedKind::kMin:
    case RedKind::kMax:
      if (v != nullptr && v->ToNumber(&num)) {
        if (!a.have || (d.kind == RedKind::kMin ? num < a.extreme : num > a.extreme)) {
          a.extreme = num;
        }
        a.have = true;
      }
      return;
    case RedKind::kStddev:
    case RedKind::kQuantile:
      if (v != nullptr && v->ToNumber(&num)) {
        a.nums.push_back(num);
      }
      return;
    case RedKind::kCountDistinct:
    case RedKind::kToList: {
      if (v == nullptr || v->is_null()) {
        return;
      }
      auto add_one = [&](const Value& x) {
        std::string key = x.ToString();
        if (a.seen.insert(key).second && d.kind == RedKind::kToList) {
          a.list.push_back(x);
        }
      };
      if (v->is_array() && v->arr) {
        for (const Value& x : *v->arr) {
          add_one(x);
        }
      } else {
        add_one(*v);
      }
      return;
    }
    case RedKind::kFirstValue: {
      if (d.by_slot < 0) {
        if (!a.first && v != nullptr) {
          a.first = *v;
        }
        return;
      }
      const Value* by = GetSlot(row, d.by_slot);
      if (by == nullptr || by->is_null()) {
        if (!a.first && v != nullptr) {
          a.first = *v;
        }
        return;
      }
      if (!a.first_by || (d.by_asc ? CompareValues(*by, *a.first_by) < 0
                                   : CompareValues(*by, *a.first_by) > 0)) {
        a.first_by = *by;
        a.first = v != nullptr ? *v : Value::Null();
      }
      return;
    }
    case RedKind::kRandomSample: {
      if (v == nullptr || d.k == 0) {
        return;
      }
      ++a.sampled;
      if (a.list.size() < d.k) {
        a.list.push_back(*v);
      } else {
        uint64_t j = ThreadRng().Below(a.sampled);
        if (j < d.k) {
          a.list[j] = *v;
        }
      }
      return;
    }
  }
}

Value FinishAccum(const RedDef& d, Accum& a) {
  switch (d.kind) {
    case RedKind::kCount:
      return Value::Number(static_cast<double>(a.count));
    case RedKind::kSum:
      return Value::Number(a.sum);
    case RedKind::kAvg:
      return Value::Number(a.count == 0 ? 0 : a.sum / static_cast<double>(a.count));
    case RedKind::kMin:
    case RedKind::kMax:
      return Value::Number(a.have ? a.extreme : 0);
    case RedKind::kCountDistinct:
      return Value::Number(static_cast<double>(a.seen.size()));
    case RedKind::kToList:
    case RedKind::kRandomSample:
      return Value::Array(std::move(a.list));
    case RedKind::kFirstValue:
      return a.first ? *a.first : Value::Null();
    case RedKind::kStddev: {
      size_t n = a.nums.size();
      if (n < 2) {
        return Value::Number(0);
      }
      double mean = 0;
      for (double x : a.nums) {
        mean += x;
      }
      mean /= static_cast<double>(n);
      double var = 0;
      for (double x : a.nums) {
        var += (x - mean) * (x - mean);
      }
      return Value::Number(std::sqrt(var / static_cast<double>(n - 1)));
    }
    case RedKind::kQuantile: {
      if (a.nums.empty()) {
        return Value::Number(0);
      }
      std::sort(a.nums.begin(), a.nums.end());
      auto idx = static_cast<size_t>(std::floor(d.q * static_cast<double>(a.nums.size() - 1)));
      return Value::Number(a.nums[std::min(idx, a.nums.size() - 1)]);
    }
  }
  return Value::Null();
}

class GroupStage : public Stage {
 public:
  GroupStage(AggregatePipeline::Impl* impl, std::vector<int> key_slots,
             std::vector<RedDef> reducers)
      : impl_(impl), key_slots_(std::move(key_slots)), reducers_(std::move(reducers)) {}

  Result<bool> Next(RowValues* row) override {
    if (!grouped_) {
      grouped_ = true;
      Status st = Consume();
      if (!st.ok()) {
        return st;
      }
      impl_->counter = groups_.size();
    }
    if (pos_ >= groups_.size()) {
      return false;
    }
    Group& g = groups_[pos_++];
    row->clear();
    row->reserve(key_slots_.size() + reducers_.size());
    for (Value& k : g.keys) {
      row->emplace_back(std::move(k));
    }
    for (size_t i = 0; i < reducers_.size(); ++i) {
      row->emplace_back(FinishAccum(reducers_[i], g.accums[i]));
    }
    return true;
  }

 private:
  struct Group {
    std::vector<Value> keys;
    std::vector<Accum> accums;
  };

  Status Consume() {
    RowValues r;
    std::vector<Value> keys(key_slots_.size());
    while (true) {
      auto more = up->Next(&r);
      if (!more.ok()) {
        return more.status();
      }
      if (!*more) {
        return Status::Ok();
      }
      AddWithKeys(r, keys, 0);
    }
  }

  // Array values (split(), TOLIST) put the row in a group per element.
  void AddWithKeys(const RowValues& r, std::vector<Value>& keys, size_t i) {
    if (i == key_slots_.size()) {
      std::string id;
      for (const Value& k : keys) {
        id.push_back(static_cast<char>(k.type));
        std::string s = k.ToString();
        id += std::to_string(s.size());
        id.push_back(':');
        id += s;
      }
      auto [it, inserted] = index_.emplace(id, groups_.size());
      if (inserted) {
        groups_.push_back(Group{keys, std::vector<Accum>(reducers_.size())});
      }
      Group& g = groups_[it->second];
      for (size_t j = 0; j < reducers_.size(); ++j) {
        AddToAccum(reducers_[j], g.accums[j], r);
      }
      return;
    }
    const Value* v = GetSlot(r, key_slots_[i]);
    if (v != nullptr && v->is_array() && v->arr && !v->arr->empty()) {
      for (const Value& x : *v->arr) {
        keys[i] = x;
        AddWithKeys(r, keys, i + 1);
      }
      return;
    }
    keys[i] = v != nullptr ? *v : Value::Null();
    AddWithKeys(r, keys, i + 1);
  }

  AggregatePipeline::Impl* impl_;
  std::vector<int> key_slots_;
  std::vector<RedDef> reducers_;
  bool grouped_ = false;
  std::vector<Group> groups_;
  std::unordered_map<std::string, size_t> index_;
  size_t pos_ = 0;
};

RedKind KindOf(const std::string& n) {
  if (n == "COUNT") return RedKind::kCount;
  if (n == "COUNT_DISTINCT" || n == "COUNT_DISTINCTISH") return RedKind::kCountDistinct;
  if (n == "SUM") return RedKind::kSum;
  if (n == "MIN") return RedKind::kMin;
  if (n == "MAX") return RedKind::kMax;
  if (n == "AVG") return RedKind::kAvg;
  if (n == "TOLIST") return RedKind::kToList;
  if (n == "FIRST_VALUE") return RedKind::kFirstValue;
  if (n == "STDDEV") return RedKind::kStddev;
  if (n == "QUANTILE") return RedKind::kQuantile;
  return RedKind::kRandomSample;
}

std::string StripAt(const std::string& s) { return !s.empty() && s[0] == '@' ? s.substr(1) : s; }

}  // namespace

// ---- Building ----

namespace {

// Resolves the properties the steps name, segment by segment.
class Planner {
 public:
  explicit Planner(AggregatePipeline::Impl* impl) : p_(impl) { p_->lookups.emplace_back(); }

  Lookup& cur() { return p_->lookups.back(); }
  bool in_base() const { return p_->lookups.size() == 1; }

  void AddBaseLoad(BaseLoad l) {
    for (BaseLoad& b : p_->base_loads) {
      if (b.slot == l.slot) {
        b = std::move(l);
        return;
      }
    }
    p_->base_loads.push_back(std::move(l));
  }

  // A schema field read implicitly (sort value when SORTABLE, else the document's field).
  int ImplicitField(const std::string& name, bool sortable_only) {
    size_t pos;
    const AggregateField* f = p_->FindField(name, &pos);
    if (f == nullptr || (sortable_only && !f->sortable)) {
      return -1;
    }
    int slot = cur().Add(name);
    BaseLoad l;
    l.slot = slot;
    if (f->sortable) {
      l.source = BaseLoad::Source::kSortValue;
      l.field = pos;
      l.normalized = f->normalized;
    } else {
      l.source = BaseLoad::Source::kDocField;
      l.path = f->path;
      l.numeric = f->numeric;
    }
    AddBaseLoad(std::move(l));
    return slot;
  }

  // For APPLY / FILTER: loaded, made by a step, or a SORTABLE field.
  int ForExpr(const std::string& name) {
    int s = cur().Find(name);
    if (s < 0 && in_base()) {
      s = ImplicitField(name, true);
      if (s < 0 && p_->load_all) {
        s = cur().Add(name);
      }
    }
    return s;
  }

  // For SORTBY / GROUPBY / REDUCE: also any schema field.
  int ForField(const std::string& name) {
    int s = cur().Find(name);
    if (s < 0 && in_base()) {
      s = ImplicitField(name, false);
      if (s < 0 && p_->load_all) {
        s = cur().Add(name);
      }
    }
    return s;
  }

  void Load(const std::string& name, const std::string& as) {
    if (!in_base()) {
      return;
    }
    int existing = cur().Find(as);
    for (const BaseLoad& b : p_->base_loads) {
      if (b.slot == existing && (b.source == BaseLoad::Source::kYield ||
                                 b.source == BaseLoad::Source::kScore)) {
        return;  // LOAD of a name the query yields (KNN's score): the yielded value
      }
    }
    int slot = cur().Add(as);
    BaseLoad l;
    l.slot = slot;
    size_t pos;
    const AggregateField* f = p_->FindField(name, &pos);
    if (name == "__key") {
      l.source = BaseLoad::Source::kKey;
    } else if (f != nullptr) {
      l.source = BaseLoad::Source::kDocField;
      l.path = f->path;
      l.numeric = f->numeric;
    } else {
      l.source = BaseLoad::Source::kDocField;
      l.path = name;
    }
    AddBaseLoad(std::move(l));
  }

 private:
  AggregatePipeline::Impl* p_;
};

Result<std::unique_ptr<Expr>> CompileExpr(Planner& pl, const std::string& text) {
  auto e = ParseExpr(text);
  if (!e.ok()) {
    return e.status();
  }
  std::vector<std::string> props;
  (*e)->CollectProperties(&props);
  for (const std::string& n : props) {
    if (pl.ForExpr(n) < 0) {
      return Status::InvalidArgument("Property `" + n + "` not loaded nor in pipeline");
    }
  }
  (*e)->ResolveProperties([&](const std::string& n) { return pl.cur().Find(n); });
  return e;
}

}  // namespace

AggregatePipeline::AggregatePipeline(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
AggregatePipeline::~AggregatePipeline() = default;

Result<std::unique_ptr<AggregatePipeline>> AggregatePipeline::Build(
    const AggregateRequest& request, const std::vector<AggregateField>& schema,
    const std::vector<std::string>& yields) {
  auto impl = std::make_unique<Impl>();
  Impl* p = impl.get();
  p->schema = schema;
  Planner pl(p);
  for (size_t i = 0; i < yields.size(); ++i) {
    BaseLoad l;
    l.source = BaseLoad::Source::kYield;
    l.field = i;
    l.slot = pl.cur().Add(yields[i]);
    pl.AddBaseLoad(std::move(l));
  }
  if (request.add_scores) {
    BaseLoad l;
    l.source = BaseLoad::Source::kScore;
    l.slot = pl.cur().Add("__score");
    pl.AddBaseLoad(std::move(l));
  }
  for (const AggregateStep& s : request.steps) {
    if (s.kind == AggregateStep::Kind::kLoad && s.load_all) {
      p->load_all = true;
    }
  }
  std::unique_ptr<Stage> last = std::make_unique<DocStage>(p);
  auto chain = [&](std::unique_ptr<Stage> next) {
    next->up = std::move(last);
    last = std::move(next);
  };
  for (const AggregateStep& s : request.steps) {
    switch (s.kind) {
      case AggregateStep::Kind::kLoad:
        for (const auto& [name, as] : s.load) {
          pl.Load(name, as);
        }
        break;
      case AggregateStep::Kind::kApply:
      case AggregateStep::Kind::kFilter: {
        auto e = CompileExpr(pl, s.expr_text);
        if (!e.ok()) {
          return e.status();
        }
        if (s.kind == AggregateStep::Kind::kApply) {
          chain(std::make_unique<ApplyStage>(std::move(*e), pl.cur().Add(s.alias)));
        } else {
          chain(std::make_unique<FilterStage>(std::move(*e)));
        }
        break;
      }
      case AggregateStep::Kind::kArrange: {
        std::vector<std::pair<int, bool>> keys;
        for (const auto& [name, asc] : s.sort_keys) {
          int slot = pl.ForField(name);
          if (slot < 0) {
            return Status::InvalidArgument("Property `" + name + "` not loaded nor in schema");
          }
          keys.emplace_back(slot, asc);
        }
        uint64_t cap = s.max ? *s.max : (s.has_limit ? s.offset + s.limit : 10);
        chain(std::make_unique<ArrangeStage>(std::move(keys), cap, s.has_limit, s.offset,
                                             s.limit, !pl.in_base()));
        break;
      }
      case AggregateStep::Kind::kGroup: {
        std::vector<int> key_slots;
        for (const std::string& k : s.group_keys) {
          int slot = pl.ForField(k);
          if (slot < 0) {
            return Status::InvalidArgument("No such property `" + k + "`");
          }
          key_slots.push_back(slot);
        }
        std::vector<RedDef> reds;
        for (const ReducerSpec& r : s.reducers) {
          RedDef d;
          d.kind = KindOf(r.name);
          if (!r.args.empty()) {
            std::string f = StripAt(r.args[0]);
            d.slot = pl.ForField(f);
            if (d.slot < 0) {
              return Status::InvalidArgument(
                  "Property is not present in document or pipeline: `" + f + "`");
            }
          }
          if (d.kind == RedKind::kQuantile) {
            d.q = ParseDouble(r.args[1]).value_or(0);
          } else if (d.kind == RedKind::kRandomSample) {
            d.k = static_cast<size_t>(ParseInt64(r.args[1]).value_or(0));
          } else if (d.kind == RedKind::kFirstValue && r.args.size() >= 3) {
            std::string f = StripAt(r.args[2]);
            d.by_slot = pl.ForField(f);
            if (d.by_slot < 0) {
              return Status::InvalidArgument(
                  "Property is not present in document or pipeline: `" + f + "`");
            }
            d.by_asc = r.args.size() < 4 || EqualsIgnoreCase(r.args[3], "ASC");
          }
          reds.push_back(d);
        }
        p->lookups.emplace_back();
        for (const std::string& k : s.group_keys) {
          pl.cur().Add(k);
        }
        for (const ReducerSpec& r : s.reducers) {
          pl.cur().Add(r.alias);
        }
        chain(std::make_unique<GroupStage>(p, std::move(key_slots), std::move(reds)));
        break;
      }
    }
  }
  p->last = std::move(last);
  for (const BaseLoad& l : p->base_loads) {
    if (l.source == BaseLoad::Source::kDocField &&
        std::find(p->doc_paths.begin(), p->doc_paths.end(), l.path) == p->doc_paths.end()) {
      p->doc_paths.push_back(l.path);
    }
  }
  return std::unique_ptr<AggregatePipeline>(new AggregatePipeline(std::move(impl)));
}

void AggregatePipeline::SetSource(AggregateSource* source) { impl_->source = source; }

void AggregatePipeline::Materialize() {
  if (impl_->materialized || impl_->source == nullptr) {
    return;
  }
  std::vector<RowValues> rows;
  rows.reserve(impl_->source->size());
  for (size_t i = 0; i < impl_->source->size(); ++i) {
    rows.push_back(impl_->LoadRow(i));
  }
  impl_->materialized = std::move(rows);
  impl_->source = nullptr;
}

Result<AggregateChunk> AggregatePipeline::Read(size_t max_rows) {
  Impl* p = impl_.get();
  p->counter = 0;
  AggregateChunk chunk;
  bool first = true;
  RowValues row;
  while (chunk.rows.size() < max_rows) {
    auto more = p->last->Next(&row);
    if (!more.ok()) {
      if (first) {
        return more.status();
      }
      chunk.warning = more.status().message();
      chunk.done = true;
      break;
    }
    if (!*more) {
      chunk.done = true;
      break;
    }
    if (first) {
      chunk.total_resp2 = p->counter;
      first = false;
    }
    const Lookup& lk = p->lookups.back();
    std::vector<std::pair<std::string, Value>> out;
    for (size_t i = 0; i < lk.names.size() && i < row.size(); ++i) {
      if (row[i].has_value()) {
        out.emplace_back(lk.names[i], std::move(*row[i]));
      }
    }
    chunk.rows.push_back(std::move(out));
  }
  if (first) {
    chunk.total_resp2 = p->counter;
  }
  chunk.total_resp3 = p->counter;
  return chunk;
}

}  // namespace hotkv::search
