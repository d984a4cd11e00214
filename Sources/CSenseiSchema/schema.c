#include "sensei_schema.h"

// #embed keeps schema.sql the single source of truth: the file at the package
// root is compiled into the binary byte for byte, with a NUL appended.
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char schema[] = {
#embed "../../schema.sql"
    , 0
};

const char *sensei_schema_sql(void) {
    return schema;
}

// The PostgreSQL schema (`serve --database postgresql://…`), the same way.
static const char schema_postgres[] = {
#embed "../../schema-postgres.sql"
    , 0
};

const char *sensei_schema_postgres_sql(void) {
    return schema_postgres;
}
