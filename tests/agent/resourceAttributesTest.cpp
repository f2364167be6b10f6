#include <gtest/gtest.h>

#include <set>

#include "resourceAttributes.h"

namespace vtctx {
namespace {

std::vector<std::pair<std::string, std::string>> Pairs(const std::vector<StringAttribute>& a) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const StringAttribute& x : a) out.emplace_back(x.key, x.value);
  return out;
}

ResourceInputs Base() {
  ResourceInputs in;
  in.random_instance_id = "11111111-2222-4333-8444-555555555555";
  return in;
}

TEST(ResourceAttributes, DefaultsForAJavaProcess) {
  ResourceAttributes r = ResolveResourceAttributes(Base());
  EXPECT_EQ(Pairs(r.attributes),
            (std::vector<std::pair<std::string, std::string>>{
                {"service.name", "unknown_service:java"},
                {"service.instance.id", "11111111-2222-4333-8444-555555555555"},
                {"telemetry.sdk.language", "java"}}));
  EXPECT_STREQ(r.service_name_source, "default");
  EXPECT_EQ(r.warning, "");
}

TEST(ResourceAttributes, ServiceNamePrecedence) {
  ResourceInputs in = Base();
  in.env_resource_attributes = "service.name=from-attributes";
  EXPECT_EQ(ResolveResourceAttributes(in).attributes[0].value, "from-attributes");
  in.env_service_name = "from-env";
  EXPECT_EQ(ResolveResourceAttributes(in).attributes[0].value, "from-env");
  EXPECT_STREQ(ResolveResourceAttributes(in).service_name_source, "OTEL_SERVICE_NAME");
  in.property_service_name = "from-property";
  EXPECT_EQ(ResolveResourceAttributes(in).attributes[0].value, "from-property");
  in.option_service_name = "from-option";
  ResourceAttributes r = ResolveResourceAttributes(in);
  EXPECT_EQ(r.attributes[0].value, "from-option");
  EXPECT_STREQ(r.service_name_source, "agent option service_name");
  // service.name appears once, whatever the sources.
  int names = 0;
  for (const StringAttribute& a : r.attributes) names += a.key == "service.name";
  EXPECT_EQ(names, 1);
  // Empty settings count as unset.
  ResourceInputs empty = Base();
  empty.property_service_name = "";
  empty.env_service_name = "";
  empty.env_resource_attributes = "";
  EXPECT_EQ(ResolveResourceAttributes(empty).attributes[0].value, "unknown_service:java");
}

TEST(ResourceAttributes, ConfiguredAttributesAreKeptInOrder) {
  ResourceInputs in = Base();
  in.env_service_name = "svc";
  in.env_resource_attributes =
      " deployment.environment.name = prod ,team=a%2Cb%3Dc,,service.instance.id=given-id,"
      "telemetry.sdk.language=python,note=caf%C3%A9%20au%20lait+more,team=last";
  ResourceAttributes r = ResolveResourceAttributes(in);
  EXPECT_EQ(r.warning, "");
  EXPECT_EQ(Pairs(r.attributes), (std::vector<std::pair<std::string, std::string>>{
                                     {"service.name", "svc"},
                                     {"service.instance.id", "given-id"},
                                     {"telemetry.sdk.language", "java"},
                                     {"deployment.environment.name", "prod"},
                                     {"team", "last"},
                                     {"note", "café au lait+more"}}));
}

TEST(ResourceAttributes, SystemPropertyReplacesTheEnvironmentVariable) {
  ResourceInputs in = Base();
  in.env_resource_attributes = "a=env,b=env";
  in.property_resource_attributes = "a=property";
  ResourceAttributes r = ResolveResourceAttributes(in);
  ASSERT_EQ(r.attributes.size(), 4u);
  EXPECT_EQ(r.attributes[3].key, "a");
  EXPECT_EQ(r.attributes[3].value, "property");
}

TEST(ResourceAttributes, InvalidValueIsDiscardedWhole) {
  for (const char* bad : {"a=1,novalue", "a=1,=2", "a=%zz", "a=%4", "a=%ff", "%c3=x"}) {
    ResourceInputs in = Base();
    in.env_resource_attributes = bad;
    ResourceAttributes r = ResolveResourceAttributes(in);
    EXPECT_EQ(r.attributes.size(), 3u) << bad;  // only ours
    EXPECT_NE(r.warning.find("OTEL_RESOURCE_ATTRIBUTES ignored"), std::string::npos) << bad;
  }
  std::vector<StringAttribute> out;
  EXPECT_NE(ParseResourceAttributes("a=1,b", &out).find("'b' is not key=value"), std::string::npos);
  EXPECT_NE(ParseResourceAttributes("a=%C3", &out).find("UTF-8"), std::string::npos);
  EXPECT_EQ(ParseResourceAttributes("a=,b=x=y", &out), "");
  EXPECT_EQ(Pairs(out),
            (std::vector<std::pair<std::string, std::string>>{{"a", ""}, {"b", "x=y"}}));
}

// Lowercase 8-4-4-4-12 hex with version nibble 4 and variant 10xx.
bool IsUuidV4(const std::string& id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash != (id[i] == '-')) return false;
    if (!dash && !((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'))) return false;
  }
  return id[14] == '4' && std::string("89ab").find(id[19]) != std::string::npos;
}

TEST(ResourceAttributes, UuidV4) {
  const uint8_t zeros[16] = {};
  EXPECT_EQ(FormatUuidV4(zeros), "00000000-0000-4000-8000-000000000000");
  uint8_t ones[16];
  std::fill(std::begin(ones), std::end(ones), 0xff);
  EXPECT_EQ(FormatUuidV4(ones), "ffffffff-ffff-4fff-bfff-ffffffffffff");
  EXPECT_FALSE(IsUuidV4("00000000-0000-3000-8000-000000000000"));
  EXPECT_FALSE(IsUuidV4("00000000-0000-4000-c000-000000000000"));
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    const std::string id = NewUuidV4();
    EXPECT_TRUE(IsUuidV4(id)) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 100u);
}

}  // namespace
}  // namespace vtctx
