ALTER TABLE `games` ADD `verdict_probs` text;--> statement-breakpoint
ALTER TABLE `games` ADD `entropy` real;