// fuzz/operations.schema.json from the descriptors; see operations_schema.h.
#include "checker/cli/operations_schema.h"

#include <google/protobuf/descriptor.h>

#include <set>
#include <string>

#include "impl/proto/transaction.pb.h"

namespace memwal::checker::cli {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using nlohmann::json;

json Ref(const Descriptor* message) {
  return json{{"$ref", "#/$defs/" + message->full_name()}};
}

// The schema of one value of `field` (not the repetition).
json ValueSchema(const FieldDescriptor* field,
                 std::set<const Descriptor*>* needed) {
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT64:
    case FieldDescriptor::CPPTYPE_UINT64:
      return json{{"type", "string"}, {"pattern", "^-?[0-9]+$"}};
    case FieldDescriptor::CPPTYPE_INT32:
    case FieldDescriptor::CPPTYPE_UINT32:
      return json{{"type", "integer"}};
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return json{{"type", "number"}};
    case FieldDescriptor::CPPTYPE_BOOL:
      return json{{"type", "boolean"}};
    case FieldDescriptor::CPPTYPE_STRING:
      if (field->type() == FieldDescriptor::TYPE_BYTES)
        return json{{"type", "string"},
                    {"pattern", "^[A-Za-z0-9+/]*={0,2}$"},
                    {"contentEncoding", "base64"}};
      return json{{"type", "string"}};
    case FieldDescriptor::CPPTYPE_ENUM: {
      json names = json::array();
      for (int k = 0; k < field->enum_type()->value_count(); ++k)
        names.push_back(field->enum_type()->value(k)->name());
      return json{{"type", "string"}, {"enum", names}};
    }
    case FieldDescriptor::CPPTYPE_MESSAGE:
      needed->insert(field->message_type());
      return Ref(field->message_type());
  }
  return json::object();
}

json MessageSchema(const Descriptor* message,
                   std::set<const Descriptor*>* needed) {
  if (message->full_name() == "google.protobuf.Any") {
    // The packed message's fields beside its type (protobuf's JSON mapping).
    return json{{"type", "object"},
                {"required", {"@type"}},
                {"properties", {{"@type", {{"type", "string"}}}}},
                {"additionalProperties", true}};
  }
  json properties = json::object();
  for (int k = 0; k < message->field_count(); ++k) {
    const FieldDescriptor* field = message->field(k);
    if (field->is_map()) {
      properties[field->name()] = {
          {"type", "object"},
          {"additionalProperties",
           ValueSchema(field->message_type()->map_value(), needed)}};
    } else if (field->is_repeated()) {
      properties[field->name()] = {{"type", "array"},
                                   {"items", ValueSchema(field, needed)}};
    } else {
      properties[field->name()] = ValueSchema(field, needed);
    }
  }
  return json{{"type", "object"},
              {"additionalProperties", false},
              {"properties", properties}};
}

}  // namespace

json OperationsSchema() {
  const Descriptor* transaction = ::lance::table::Transaction::descriptor();
  const google::protobuf::OneofDescriptor* oneof =
      transaction->FindOneofByName("operation");
  std::set<const Descriptor*> needed;
  json variants = json::array();
  json names = json::array();
  for (int k = 0; k < oneof->field_count(); ++k) {
    const FieldDescriptor* field = oneof->field(k);
    names.push_back(field->name());
    needed.insert(field->message_type());
    variants.push_back({{"type", "object"},
                        {"properties",
                         {{"operation", {{"const", field->name()}}},
                          {"fields", Ref(field->message_type())}}}});
  }
  json defs = json::object();
  std::set<const Descriptor*> done;
  while (!needed.empty()) {
    const Descriptor* message = *needed.begin();
    needed.erase(needed.begin());
    if (!done.insert(message).second) continue;
    defs[message->full_name()] = MessageSchema(message, &needed);
  }
  const json operation = {
      {"type", "object"},
      {"additionalProperties", false},
      {"required",
       {"version", "read_version", "operation", "transaction_file", "fields",
        "transaction_properties"}},
      {"properties",
       {{"version", {{"type", "integer"}}},
        {"read_version", {{"type", "integer"}}},
        {"operation", {{"type", "string"}, {"enum", names}}},
        {"transaction_file", {{"type", "string"}}},
        {"fields", {{"type", "object"}}},
        {"transaction_properties",
         {{"type", "object"},
          {"additionalProperties", {{"type", "string"}}}}}}},
      {"oneOf", variants}};
  return json{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", std::string("memwal-check-operations-")
                  .append(std::to_string(kOperationsFormatVersion))},
      {"title",
       "memwal-check corpus --operations: the Lance operations one corpus "
       "entry commits (generated from impl/proto by `memwal-check corpus "
       "--operations-schema`)"},
      {"type", "object"},
      {"additionalProperties", false},
      {"required",
       {"format", "format_version", "entry", "lance_version", "table_dir",
        "retained_versions", "left_out", "operations"}},
      {"properties",
       {{"format", {{"type", "string"}, {"enum", {"memwal-check-operations"}}}},
        {"format_version",
         {{"type", "integer"}, {"enum", {kOperationsFormatVersion}}}},
        {"entry", {{"type", "string"}}},
        {"lance_version", {{"type", "string"}}},
        {"table_dir", {{"type", "string"}}},
        {"retained_versions",
         {{"type", "array"}, {"items", {{"type", "integer"}}}}},
        {"left_out", {{"type", "integer"}}},
        {"operations",
         {{"type", "array"}, {"items", {{"$ref", "#/$defs/operation"}}}}}}},
      {"$defs", [&] {
         json all = defs;
         all["operation"] = operation;
         return all;
       }()}};
}

}  // namespace memwal::checker::cli
