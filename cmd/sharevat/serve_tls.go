package main

import (
	"github.com/spf13/pflag"
)

// tlsFlags are serve's flags for serving TLS itself (wss:// and https://).
type tlsFlags struct {
	cert string
	key  string
}

func (t *tlsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.cert, "tls-cert", "", "serve TLS (wss://) with this PEM certificate chain; needs --tls-key")
	fs.StringVar(&t.key, "tls-key", "", "PEM private key of --tls-cert")
}

// validate wants both files or neither.
func (t *tlsFlags) validate() error {
	if (t.cert == "") != (t.key == "") {
		return usagef("--tls-cert and --tls-key go together: give both or neither")
	}
	return nil
}
