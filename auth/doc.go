// Package auth keeps strangers out of a cluster: a shared join token checked
// on every RPC but health, and TLS or mutual TLS for the transport.
//
// Both sides build their gRPC options from the same flags:
//
//	cfg := auth.Config{Token: auth.NewToken(os.Getenv(auth.EnvToken)), // then flag.Var(&cfg.Token, "token", ...)
//		CertFile: *tlsCert, KeyFile: *tlsKey, CAFile: *tlsCA}
//	sopts, err := cfg.ServerOptions()              // coordinator: TLS creds + token interceptors
//	srv := grpc.NewServer(append(sopts, grpc.KeepaliveParams(...))...)
//	healthpb.RegisterHealthServer(srv, health.NewServer()) // exempt: probes carry no token
//
//	dopts, err := cfg.DialOptions()                // worker: TLS creds + the token on every RPC
//	conn, err := grpc.NewClient(joinAddr, dopts...)
//	// a wrong or missing token: status.Code(err) == codes.Unauthenticated
//	log.Info("security", "auth", cfg)              // prints the token as [REDACTED]
//
// The token travels as metadata "authorization: Bearer <token>" (MetadataKey),
// so grpcurl -H "authorization: Bearer $NQUEENS_TOKEN" works. It is compared in
// constant time (SHA-256 of both sides, then crypto/subtle). Only
// /grpc.health.v1.Health/* is exempt; server reflection needs the token too.
// An unset server token disables the check, for loopback and tests. Tokens
// never appear in errors or in the String, GoString or JSON of Token and Config.
// Package authtest makes certificates for tests.
package auth
