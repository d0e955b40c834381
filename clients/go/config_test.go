package doorman_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	doorman "github.com/doorman-oss/doorman/clients/go"
)

func TestNewRefusesABadConfigurationWithAClearMessage(t *testing.T) {
	const url = "https://doorman.example"
	cases := []struct {
		name    string
		options doorman.Options
		says    string
	}{
		{"no key (an unset variable)", doorman.Options{BaseURL: url}, "SecretKey is missing"},
		{"a publishable live key", doorman.Options{SecretKey: "pk_live_abc", BaseURL: url}, "publishable key"},
		{"a publishable test key", doorman.Options{SecretKey: "pk_test_abc", BaseURL: url}, "publishable key"},
		{"a key with a line break", doorman.Options{SecretKey: "sk_test_abc\n", BaseURL: url}, "space or a line break"},
		{"a key with a space inside", doorman.Options{SecretKey: "sk_test_ab c", BaseURL: url}, "space or a line break"},
		{"a key that is only its prefix", doorman.Options{SecretKey: "sk_live_", BaseURL: url}, "only its prefix"},
		{"another kind of key", doorman.Options{SecretKey: "rk_test_abc", BaseURL: url}, "must start sk_live_ or sk_test_"},
		{"no base URL", doorman.Options{SecretKey: "sk_test_abc"}, "BaseURL is missing"},
		{"a relative base URL", doorman.Options{SecretKey: "sk_test_abc", BaseURL: "doorman.example"}, "not an absolute URL"},
		{"another scheme", doorman.Options{SecretKey: "sk_test_abc", BaseURL: "ftp://doorman.example"}, "must be http or https"},
		{"credentials in the URL", doorman.Options{SecretKey: "sk_test_abc", BaseURL: "https://me:pw@doorman.example"}, "credentials"},
		{"a query", doorman.Options{SecretKey: "sk_test_abc", BaseURL: "https://doorman.example/?a=1"}, "query or a fragment"},
		{"a fragment", doorman.Options{SecretKey: "sk_test_abc", BaseURL: "https://doorman.example/#x"}, "query or a fragment"},
		{"a negative budget", doorman.Options{SecretKey: "sk_test_abc", BaseURL: url, ScreenTimeout: -time.Second}, "must not be negative"},
		{"a negative retry count", doorman.Options{SecretKey: "sk_test_abc", BaseURL: url, MaxRetries: -5}, "MaxRetries"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, err := doorman.New(c.options)
			if err == nil || client != nil {
				t.Fatalf("want an error saying %q, got a client", c.says)
			}
			if !strings.Contains(err.Error(), c.says) {
				t.Fatalf("the error %q does not say %q", err, c.says)
			}
		})
	}
}

func TestNewAcceptsAGoodConfigurationAndKnowsTheMode(t *testing.T) {
	for key, mode := range map[string]doorman.Mode{"sk_test_abc": doorman.ModeTest, "sk_live_abc": doorman.ModeLive} {
		client, err := doorman.New(doorman.Options{SecretKey: key, BaseURL: "http://127.0.0.1:8080/prefix/", HTTPClient: &http.Client{}})
		if err != nil {
			t.Fatal(err)
		}
		if client.Mode() != mode {
			t.Fatalf("%s: mode %s", key, client.Mode())
		}
	}
}
