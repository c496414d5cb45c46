// The client of python/scripts/accept_rate/run.sh (see there).
// accept-rate client: K processes, each: connect, send 1 byte, read the echo, close; for D seconds.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  int port=atoi(argv[1]); double dur=atof(argv[2]); int k=atoi(argv[3]);
  int pfd[2]; pipe(pfd);
  for(int i=0;i<k;i++) if(fork()==0){
    struct sockaddr_in a={.sin_family=AF_INET,.sin_port=htons(port)}; a.sin_addr.s_addr=htonl(0x7f000001);
    long n=0,err=0; double end=now()+dur; char c='x';
    while(now()<end){
      int s=socket(AF_INET,SOCK_STREAM,0);
      if(connect(s,(void*)&a,sizeof a)<0){err++;close(s);continue;}
      if(write(s,&c,1)!=1||read(s,&c,1)!=1){err++;close(s);continue;}
      close(s); n++;
    }
    long r[2]={n,err}; write(pfd[1],r,sizeof r); _exit(0);
  }
  long tot=0,terr=0; for(int i=0;i<k;i++){long r[2]; read(pfd[0],r,sizeof r); tot+=r[0]; terr+=r[1];}
  while(wait(NULL)>0);
  printf("%.0f %ld\n", tot/dur, terr); return 0;
}
