// Command healthprobe asks a gRPC server whether it is serving, through the
// standard grpc.health.v1 Check call, and turns the answer into an exit
// status. It exists so that images built FROM scratch can have a Docker
// HEALTHCHECK without a shell or any other tool inside the image.
//
//	healthprobe --addr 127.0.0.1:7070                  # the whole server
//	healthprobe --addr 127.0.0.1:7071 --service nqueens.v1.CoordinatorService
//	healthprobe --addr coordinator:7070 --tls-ca ca.pem  # TLS (add --tls-cert/--tls-key for mTLS)
//
// Exit status: 0 when the server answers SERVING; 1 when it answers anything
// else, cannot be reached, or does not answer within --timeout (one line on
// stderr says which); 2 on bad usage.
package main
