/**
 * A NestJS app (Express adapter) with the contract's router under /api. Global middleware runs before every
 * controller, so the router is mounted with `app.use` before the app starts (ahead of Nest's own body parser, so
 * that the contract's routes keep the contract's 400 and 413), and the controller route that overlaps a contract
 * pattern is in the router's `passThrough`.
 */
import "reflect-metadata";
import type { AddressInfo } from "node:net";
import { Body, Controller, Get, Module, Post } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import { contractRouter, listening } from "./contract.js";

@Controller("api")
class HostController {
  @Get("health")
  health() {
    return { app: "nest", ok: true };
  }

  @Get("v1/notifications/stats")
  stats() {
    return { app: "nest", stats: true };
  }

  @Post("echo")
  echo(@Body() body: unknown) {
    return { app: "nest", echoed: body };
  }
}

@Module({ controllers: [HostController] })
class AppModule {}

const app = await NestFactory.create(AppModule, { logger: ["error"] });
app.use("/api", contractRouter());
await app.listen(Number(process.env.PORT ?? 0), "127.0.0.1");
listening("NestJS", (app.getHttpServer().address() as AddressInfo).port);
