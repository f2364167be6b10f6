


service.name

café 🚀.
threadlocal.schema_version
tlsdesc_v1_dev,
threadlocal.attribute_key_map*	

rôle