// AWS Lambda behind API Gateway (HTTP API) or a function URL, through hono/aws-lambda.
import { Hono } from 'hono';
import { handle } from 'hono/aws-lambda';
import { handler as turnkit } from './handler.js';

const app = new Hono().all('*', (c) => turnkit(c.req.raw));

export const handler = handle(app);
