package opensearch

import (
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/seshat-bench/seshat/internal/exitcode"
	"github.com/seshat-bench/seshat/lts"
)

// credentialSources are the places OpenSearch's basic-auth credentials can
// come from, as given.
type credentialSources struct {
	URL          *url.Userinfo // the store URL's user[:password]@, nil when none
	Username     string        // SESHAT_OPENSEARCH_USERNAME
	Password     lts.Secret    // SESHAT_OPENSEARCH_PASSWORD
	FilePassword lts.Secret    // the first line of --password-file
}

// basicAuth is the one rule of where the credentials come from: each
// setting made for the purpose wins over the store URL, field by field.
//
//   - The user is SESHAT_OPENSEARCH_USERNAME, else the URL's.
//   - The password is --password-file's, else SESHAT_OPENSEARCH_PASSWORD,
//     else the URL's — the URL's only for the URL's user (or when the URL
//     names none): a password written for one user is not sent for another.
//
// So a URL's password is not lost when the environment names its user too,
// and a password kept in the environment or a file replaces one written in
// a config file's URL. A password without any user, and a URL's password
// left without its user by SESHAT_OPENSEARCH_USERNAME, are invalid input
// naming the settings (never their values). No user and no password: no
// authentication.
func basicAuth(src credentialSources) (string, lts.Secret, error) {
	var urlUser string
	var urlPassword lts.Secret
	if src.URL != nil {
		urlUser = src.URL.Username()
		if pw, ok := src.URL.Password(); ok {
			urlPassword = lts.Secret(pw)
		}
	}
	user := src.Username
	if user == "" {
		user = urlUser
	}
	var password lts.Secret
	var from string
	switch {
	case src.FilePassword != "":
		password, from = src.FilePassword, "--password-file"
	case src.Password != "":
		password, from = src.Password, "SESHAT_OPENSEARCH_PASSWORD"
	case urlPassword != "":
		if urlUser != "" && user != urlUser {
			return "", "", exitcode.Errorf(exitcode.InvalidInput, "the store URL's password is its user's, and SESHAT_OPENSEARCH_USERNAME names another: "+
				"give that user's password (SESHAT_OPENSEARCH_PASSWORD or --password-file), or the same user in both")
		}
		password, from = urlPassword, "the store URL"
	}
	if password != "" && user == "" {
		return "", "", exitcode.Errorf(exitcode.InvalidInput,
			"an OpenSearch password is given (%s) but no user: set SESHAT_OPENSEARCH_USERNAME or write the user in the store URL (https://USER@host:9200)", from)
	}
	return user, password, nil
}

// readPasswordFile reads the first line of --password-file.
func readPasswordFile(path string) (lts.Secret, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", exitcode.Input(fmt.Errorf("--password-file: %w", err))
	}
	first, _, _ := strings.Cut(string(data), "\n")
	pw := lts.Secret(strings.TrimRight(first, "\r"))
	if pw == "" {
		return "", exitcode.Errorf(exitcode.InvalidInput, "--password-file %s: empty first line", path)
	}
	return pw, nil
}
