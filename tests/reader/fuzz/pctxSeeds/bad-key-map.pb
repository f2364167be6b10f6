
}

service.name

checkout
=
service.instance.id&
$0b4f6bde-57a5-4c3c-9a59-3e4cbb1b4b4f
 
telemetry.sdk.language
java.
threadlocal.schema_version
tlsdesc_v1_dev,
threadlocal.attribute_key_map*	

a
