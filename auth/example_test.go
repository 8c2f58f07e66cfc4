package auth_test

import (
	"fmt"

	"github.com/nqueens/nqueens/auth"
)

// A Config goes into logs safely: the token never prints.
func ExampleConfig() {
	cfg := auth.Config{Token: auth.NewToken("correct-horse-battery-staple"), CAFile: "ca.pem"}
	fmt.Println(cfg)
	fmt.Printf("%v %q\n", cfg.Token, cfg.Token)
	fmt.Println(cfg.ClientTLSEnabled(), cfg.ServerTLSEnabled())
	// Output:
	// {token:[REDACTED] cert:"" key:"" ca:"ca.pem" server_name:""}
	// [REDACTED] [REDACTED]
	// true false
}
