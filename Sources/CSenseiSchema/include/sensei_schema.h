#ifndef SENSEI_SCHEMA_H
#define SENSEI_SCHEMA_H

/// The bytes of schema.sql at the package root, NUL-terminated.
const char *sensei_schema_sql(void);

/// schema-postgres.sql, NUL-terminated.
const char *sensei_schema_postgres_sql(void);

#endif
