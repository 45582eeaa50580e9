// Package opensearch is the OpenSearch LTS store (opensearch-go), opened
// from an http:// or https://host:port URL. It registers itself with
// package lts in init.
//
// open parses the URL and settles the basic-auth credentials (basicAuth:
// the one rule weighing SESHAT_OPENSEARCH_USERNAME, SESHAT_OPENSEARCH_PASSWORD
// and --password-file, as StoreOptions brings them, against the URL's user
// and password), the TLS settings, and a client whose own retries are off.
// Nothing is sent until the first call.
//
// Put installs the index templates the cluster lacks, sends the payloads
// and their KPI documents in bulk requests bounded by count and bytes,
// re-sends only the documents that failed retryably, removes the KPI
// documents the runs no longer have once everything is stored, and
// refreshes both indices. Documents left unstored make an *UploadError
// counting them by reason; a failed clean-up says the upload is stored. The
// stats count what was stored in every case. Queries page with
// search_after on (start, test_uuid).
//
// Every request of an operation (an upload, a query and its pages) retries
// on one schedule: exponential backoff with full jitter from 429, 502, 503
// and 504 answers and dropped connections, until the operation has spent
// its whole retry budget, the last wait cut to what is left. The first
// retry of a store is said once, at info level on the log. 500 is not
// retried: OpenSearch answers overload with 429 and unavailability with
// 503, and 500 for what it does not classify (docs/stores.md).
package opensearch
