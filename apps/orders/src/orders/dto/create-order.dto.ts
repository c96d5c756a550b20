import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsPositive,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** One line of a new order. */
export class OrderItemDto {
  /** Stock keeping unit of the product. */
  @IsString()
  @IsNotEmpty()
  @MaxLength(64)
  sku!: string;

  /** How many; a whole number above zero. */
  @IsInt()
  @Min(1)
  @Max(10_000)
  qty!: number;
}

/** Body of `POST /orders`. */
export class CreateOrderDto {
  /** The lines of the order: at least one. */
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => OrderItemDto)
  items!: OrderItemDto[];

  /** Total to pay, in cents; a whole number above zero. */
  @IsInt()
  @IsPositive()
  @Max(Number.MAX_SAFE_INTEGER)
  amountCents!: number;

  /** The customer placing the order, when known. */
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  customerId?: string;
}
