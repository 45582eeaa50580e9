// Package redact keeps credentials out of what seshat prints, writes and
// hands down, by one set of rules:
//
//   - URL names a URL in a message: its password hidden, or, where the URL's
//     shape leaves unclear where its user information ends, all of what
//     precedes its last '@'.
//   - Text hides the credentials of the URLs in a line of free text (the
//     end of a failed run's stderr in the run summary).
//   - CheckUserinfo refuses a URL whose user information is not
//     percent-encoded, so that it would be read with another host than
//     meant (http://admin:p@ss/w@host is the host "ss").
//   - StripUserinfo removes the user information of a URL written into a
//     file or a payload (the published results, a CI run's page).
//   - Environ is the environment of a child process: seshat's own
//     variables without their secrets.
package redact
