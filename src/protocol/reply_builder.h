// ReplyBuilder: writes RESP2 or RESP3 replies into a ByteBuffer.
//
//   ReplyBuilder rb(&out);
//   rb.set_resp3(true);
//   rb.Map(2); rb.Bulk("server"); rb.Bulk("hotkv"); rb.Bulk("proto"); rb.Integer(3);
//
// The same calls produce the right encoding for the connection's protocol: Map() is an
// array of 2n in RESP2, Null() is "$-1" (RESP2) or "_" (RESP3), Double() is a bulk string
// in RESP2, and so on. For replies whose length is only known at the end, use
// BeginDeferred()/EndDeferredArray() (the header is inserted when the length is known).
//
// Thread safety: none; owned by one connection.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "protocol/byte_buffer.h"

namespace hotkv {

// Receives the code of every error reply ("ERR", "WRONGTYPE", ...) for INFO errorstats.
class ErrorSink {
 public:
  virtual ~ErrorSink() = default;
  virtual void OnError(std::string_view code) = 0;
};

class ReplyBuilder {
 public:
  explicit ReplyBuilder(ByteBuffer* out) : out_(out) {}

  void set_resp3(bool v) { resp3_ = v; }
  void set_error_sink(ErrorSink* sink) { sink_ = sink; }
  bool resp3() const { return resp3_; }
  ByteBuffer* buffer() { return out_; }

  void Ok() { out_->Append("+OK\r\n", 5); }
  void SimpleString(std::string_view s);
  // `text` is the full error without the leading '-', e.g. "ERR syntax error" or
  // "WRONGTYPE Operation against a key holding the wrong kind of value".
  void Error(std::string_view text);
  void Integer(int64_t v);
  void Bulk(std::string_view s);
  // A bulk string whose bytes `hold` keeps alive (an immutable stored value): from
  // kMinRefBulk bytes on, and when the buffer allows references (a connection's output),
  // the reply refers to the bytes instead of copying them, and the send reads them from
  // where they are stored (ByteBuffer's references); else the same as Bulk(s).
  static constexpr size_t kMinRefBulk = 64 * 1024;
  template <typename T>
  void BulkRef(const std::shared_ptr<T>& hold, std::string_view s) {
    if (s.size() < kMinRefBulk || !out_->refs_allowed()) {
      return Bulk(s);
    }
    BulkByRef(std::shared_ptr<const void>(hold), s);
  }
  void Null();       // missing value: $-1 / _
  void NullArray();  // missing aggregate: *-1 / _
  void Array(size_t n) { AggregateHeader('*', n); }
  void Map(size_t n);  // n key/value pairs
  void Set(size_t n) { AggregateHeader(resp3_ ? '~' : '*', n); }
  void Push(size_t n) { AggregateHeader(resp3_ ? '>' : '*', n); }
  void Double(double v);
  void Bool(bool v);
  // A bulk string that RESP3 marks as verbatim text with a 3-letter format ("txt").
  void Verbatim(std::string_view s, std::string_view format = "txt");
  void EmptyArray() { out_->Append("*0\r\n", 4); }

  // Deferred aggregate header: remember the position, write the elements, then
  // EndDeferred*(pos, count) inserts the header in front of them.
  size_t BeginDeferred() const { return out_->size(); }
  void EndDeferredArray(size_t pos, size_t n) { InsertHeader(pos, '*', n); }
  void EndDeferredMap(size_t pos, size_t pairs);
  void EndDeferredSet(size_t pos, size_t n) { InsertHeader(pos, resp3_ ? '~' : '*', n); }

  // Number of error replies written by this builder (for INFO's errorstats).
  uint64_t errors_written() const { return errors_written_; }

  // Appends pre-encoded RESP bytes.
  void Raw(std::string_view bytes) { out_->Append(bytes); }

 private:
  void BulkByRef(std::shared_ptr<const void> hold, std::string_view s);
  void AggregateHeader(char type, size_t n);
  void InsertHeader(size_t pos, char type, size_t n);

  ByteBuffer* out_;
  bool resp3_ = false;
  uint64_t errors_written_ = 0;
  ErrorSink* sink_ = nullptr;
};

// Common error texts, exactly as Redis writes them.
namespace errors {
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kOutOfRange = "ERR index out of range";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kDbIndex = "ERR DB index is out of range";
inline constexpr std::string_view kMustBePositive = "ERR value is out of range, must be positive";
}  // namespace errors

}  // namespace hotkv
