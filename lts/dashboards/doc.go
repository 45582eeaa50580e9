// Package dashboards builds OpenSearch Dashboards saved objects for the
// indices `seshat upload` fills: an index pattern per index (payloads, KPI
// documents), one line chart per KPI of every registered workload (the
// median `value` over `@timestamp`, filtered to that workload and KPI, one
// series per value of the comparison labels) and one dashboard per workload
// holding its charts.
//
// The objects have the shape the saved-objects import API of OpenSearch
// Dashboards 2.x reads (POST /api/saved_objects/_import, the same NDJSON its
// export writes): type, id, attributes, references and migrationVersion.
// Nested state (visState, panelsJSON, searchSourceJSON) is JSON encoded as a
// string, as Dashboards stores it. Objects refer to each other only through
// `references` (indexRefName, panelRefName), the post-7.0 form, and carry
// the migration versions of OpenSearch Dashboards' own latest migrations so
// that nothing is migrated on import. OpenSearch Dashboards forked before
// coreMigrationVersion existed, so there is none.
//
// Ids are derived from the index and KPI names: importing again with
// overwrite replaces the objects instead of adding copies, and two index
// prefixes (staging, production) get objects of their own.
package dashboards
