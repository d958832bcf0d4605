// FunctionRef<R(Args...)>: a non-owning reference to a callable, for visitor parameters.
//
// The collection types report elements through callbacks (LRANGE, HGETALL, SSCAN ...)
// so that they can hand out views of their own bytes without copying. A FunctionRef is
// two words, never allocates, and must not outlive the callable it refers to — pass
// lambdas directly at the call site:
//
//   list.Range(0, -1, [&](std::string_view v) { reply.AddBulk(v); });
//
// Thread safety: as the referenced callable.

#ifndef HOTKV_TYPES_FUNCTION_REF_H_
#define HOTKV_TYPES_FUNCTION_REF_H_

#include <memory>
#include <type_traits>
#include <utility>

namespace hotkv::types {

template <typename Signature>
class FunctionRef;

template <typename R, typename... Args>
class FunctionRef<R(Args...)> {
 public:
  template <typename F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
             std::is_invocable_r_v<R, F&, Args...>)
  FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): used like a function type
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* object, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(object))(
              std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace hotkv::types

#endif  // HOTKV_TYPES_FUNCTION_REF_H_
